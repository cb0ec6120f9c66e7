// One run: its graph lighting up live, the text of the nodes writing now, the event log, and
// the report once it is done, with downloads and a comparison with other runs of the same call.

import { ApiError, api, followRun, pipelines } from "./api.js";
import { clear, fmtInt, fmtMs, fmtTime, h, saveAs } from "./dom.js";
import { GraphView } from "./graph.js";
import { PassageDrawer, renderReport } from "./report.js";

const TERMINAL = new Set(["succeeded", "degraded", "failed", "cancelled"]);

export function statusBadge(status) {
  return h("span", { class: `status status-${status}`, dataset: { status } }, status);
}

/** What the user stated about the call, else what the report's call facts read from the call. */
function callTitle(run) {
  const c = run.call || {};
  const read = run.report?.facts?.call || {};
  const [company, ticker, period] = ["company", "ticker", "period"].map((k) => c[k] || read[k]);
  return [company, ticker && `(${ticker})`, period].filter(Boolean).join(" ") || "Untitled call";
}

async function download(run, kind) {
  const base = `/v1/runs/${encodeURIComponent(run.id)}`;
  if (kind === "json") {
    const detail = await api(base);
    saveAs(JSON.stringify(detail.report, null, 2), `report-${run.id}.json`, "application/json");
  } else {
    const resp = await api(`${base}/report.${kind}`, { raw: true });
    saveAs(await resp.blob(), `report-${run.id}.${kind}`);
  }
}

const IDLE = "Nothing is being written right now.";

/** The "Writing now" panel: one streaming box per node that is writing. */
class Writers {
  constructor() {
    this.el = h("div", { class: "writing", "aria-live": "off" }, h("p", { class: "muted" }, IDLE));
    this.boxes = new Map();
    this.finished = new Set();
  }

  token(data) {
    // tokens travel apart from the stored events: one may land after its node finished
    if (this.finished.has(data.node)) return;
    if (!this.boxes.has(data.node)) {
      if (!this.boxes.size) clear(this.el);
      const pre = h("pre", { class: "stream" });
      const box = h("div", { class: "writer", dataset: { node: data.node } },
        h("div", { class: "who" }, h("strong", {}, data.node), " ", h("span", { class: "muted" }, "writing…")), pre);
      this.boxes.set(data.node, { box, pre, text: "" });
      this.el.append(box);
    }
    const w = this.boxes.get(data.node);
    w.text += data.text;
    w.pre.textContent = w.text.length > 1500 ? `…${w.text.slice(-1500)}` : w.text;
    w.pre.scrollTop = w.pre.scrollHeight;
  }

  started(node) { this.finished.delete(node); }

  done(node) {
    this.finished.add(node);
    const w = this.boxes.get(node);
    if (!w) return;
    w.box.remove();
    this.boxes.delete(node);
    if (!this.boxes.size) clear(this.el).append(h("p", { class: "muted" }, IDLE));
  }

  doneAll() { for (const node of [...this.boxes.keys()]) this.done(node); }
}

/** One line of the event log. */
function eventLine(type, data, seq) {
  const time = data.at ? new Date(data.at).toLocaleTimeString() : "";
  let text;
  if (type === "run_started") text = `run started${data.resumed ? " (resumed after a restart)" : ""}`;
  else if (type === "node_started") text = `${data.node} started`;
  else if (type === "node_finished") text = `${data.node} finished${data.duration_ms != null ? ` in ${fmtMs(data.duration_ms)}` : ""}${data.tokens ? `, ${fmtInt(data.tokens)} tokens` : ""}${data.outcome !== "ok" ? ` (${data.outcome})` : ""}`;
  else if (type === "error") text = `error${data.node ? ` in ${data.node}` : ""}: ${data.message}`;
  else if (type === "run_finished") text = `run ${data.status}${data.reason ? ` (${data.reason})` : ""}`;
  return h("li", { class: `ev ev-${type}`, dataset: { seq: String(seq), type, node: data.node || null } },
    h("span", { class: "muted" }, time), " ", text,
    data.summary ? h("div", { class: "muted summary" }, data.summary) : null);
}

function totalsLine(detail) {
  return [
    `${fmtInt(detail.tokens.total)} tokens`,
    detail.started_at && detail.finished_at ? `${fmtMs(new Date(detail.finished_at) - new Date(detail.started_at))} wall time` : null,
    detail.cost_usd != null ? `$${detail.cost_usd.toFixed(4)}` : null,
  ].filter(Boolean).join(" · ");
}

/** Downloads, and "compare with" the other runs of the same call. */
async function reportActions(detail, errorBox, navigate) {
  const btn = (label, kind) => h("button", { type: "button", class: "btn small", dataset: { download: kind }, onclick: async (e) => {
    e.target.disabled = true;
    try { await download(detail, kind); } catch (err) { errorBox.textContent = `Download failed: ${err.message}`; } finally { e.target.disabled = false; }
  } }, label);
  const out = [h("span", { class: "muted" }, "Download "), btn("Markdown", "md"), btn("JSON", "json"), btn("PDF", "pdf"), btn("Excel", "xlsx"), btn("CSV (zip)", "csv.zip")];
  const others = await api(`/v1/runs?limit=200`).then((page) => page.items.filter((r) => r.id !== detail.id && r.transcript_sha256 === detail.transcript_sha256)).catch(() => []);
  if (others.length) {
    const sel = h("select", { "aria-label": "run to compare with" }, others.map((r) => h("option", { value: r.id }, `${r.pipeline} · ${r.status} · ${fmtTime(r.created_at)}`)));
    out.push(h("span", { class: "compare-pick" }, h("span", { class: "muted" }, " Compare with "), sel,
      h("button", { type: "button", class: "btn small", onclick: () => navigate(`#/compare/${detail.id}/${sel.value}`) }, "Compare")));
  }
  return out;
}

/** The run's page parts: header (status, link, cancel, totals, errors, actions) and panels. */
function runLayout(run, graph) {
  const ui = {
    status: h("span", {}, statusBadge(run.status)),
    link: h("span", { class: "link-state muted", dataset: { link: "connecting" } }, "connecting…"),
    errorBox: h("div", { class: "run-error", role: "alert" }),
    writers: new Writers(),
    activity: h("ol", { class: "activity", reversed: true }),
    reportBox: h("div", { class: "report-box" }),
    actions: h("div", { class: "actions" }),
    totals: h("span", { class: "muted" }),
    title: h("h2", {}, callTitle(run)),
  };
  ui.cancelBtn = h("button", { type: "button", class: "btn small danger", onclick: async () => {
    ui.cancelBtn.disabled = true;
    try { await api(`/v1/runs/${encodeURIComponent(run.id)}/cancel`, { method: "POST" }); } catch (err) { ui.errorBox.textContent = err.message; ui.cancelBtn.disabled = false; }
  } }, "Cancel run");
  ui.head = h("div", { class: "card run-head" },
    h("div", { class: "row spread" },
      h("div", {},
        ui.title,
        h("div", { class: "muted" }, h("code", {}, run.pipeline), " · started ", fmtTime(run.created_at), " · run ", h("code", { class: "run-id" }, run.id))),
      h("div", { class: "row" }, ui.status, ui.link, TERMINAL.has(run.status) ? null : ui.cancelBtn)),
    ui.totals, ui.errorBox, ui.actions);
  ui.live = h("div", { class: "card live" },
    h("div", { class: "graph-box" }, h("h3", {}, "Pipeline"), graph ? graph.svg : h("p", { class: "error" }, `Unknown pipeline ${run.pipeline}`),
      h("p", { class: "legend muted" }, ["idle", "running", "done", "degraded", "failed", "untaken"].map((st) => h("span", { class: `key key-${st}` }, st)))),
    h("div", { class: "side" }, h("h3", {}, "Writing now"), ui.writers.el, h("h3", {}, "Events"), ui.activity));
  return ui;
}

async function showResult(runId, ui, drawer, navigate) {
  const detail = await api(`/v1/runs/${encodeURIComponent(runId)}`);
  clear(ui.status).append(statusBadge(detail.status));
  ui.title.textContent = callTitle(detail);
  ui.cancelBtn.remove();
  ui.totals.textContent = totalsLine(detail);
  if (detail.error) {
    clear(ui.errorBox).append(h("p", { class: "error" }, h("strong", {}, `Run ${detail.status}`), detail.failed_node ? ` in ${detail.failed_node}` : "", `: ${detail.error}`));
  }
  clear(ui.actions);
  clear(ui.reportBox);
  if (detail.report) {
    ui.actions.append(...await reportActions(detail, ui.errorBox, navigate));
    ui.reportBox.append(h("div", { class: "card" }, renderReport(detail, drawer)));
  }
}

export async function runView(root, runId, { navigate, addCleanup }) {
  let run;
  try {
    run = await api(`/v1/runs/${encodeURIComponent(runId)}`);
  } catch (err) {
    clear(root).append(h("div", { class: "card" }, h("h2", {}, "Run not available"), h("p", { class: "error" }, err.message),
      h("p", {}, h("a", { href: "#/history" }, "Back to history"))));
    return;
  }
  const info = (await pipelines()).find((p) => p.name === run.pipeline);
  const graph = info ? new GraphView(info) : null;
  const drawer = new PassageDrawer(run.id);
  const ui = runLayout(run, graph);
  clear(root).append(ui.head, ui.live, ui.reportBox);

  const onEvent = (type, data, seq) => {
    if (type === "token") return ui.writers.token(data);
    if (type === "node_started") ui.writers.started(data.node);
    graph?.onEvent(type, data);
    ui.activity.prepend(eventLine(type, data, seq));
    if (type === "run_started") clear(ui.status).append(statusBadge("running"));
    if (type === "node_finished" || (type === "error" && data.node)) ui.writers.done(data.node);
    if (type === "error") ui.errorBox.append(h("p", { class: "error" }, data.node ? `${data.node}: ` : "", data.message));
    if (type === "run_finished") {
      ui.writers.doneAll();
      showResult(run.id, ui, drawer, navigate).catch((err) => { ui.errorBox.textContent = err instanceof ApiError ? err.message : String(err); });
    }
  };
  const stream = followRun(run.id, {
    tokens: true,
    onLink: (state) => {
      ui.link.dataset.link = state;
      ui.link.textContent = { connecting: "connecting…", live: "live", reconnecting: "connection lost, reconnecting…", closed: "" }[state];
    },
    onEvent,
  });
  addCleanup(() => stream.close());
}
