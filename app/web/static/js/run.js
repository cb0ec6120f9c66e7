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

function callTitle(run) {
  const c = run.call || {};
  return [c.company, c.ticker && `(${c.ticker})`, c.period].filter(Boolean).join(" ") || "Untitled call";
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

  const status = h("span", {}, statusBadge(run.status));
  const link = h("span", { class: "link-state muted", dataset: { link: "connecting" } }, "connecting…");
  const errorBox = h("div", { class: "run-error", role: "alert" });
  const writing = h("div", { class: "writing", "aria-live": "off" }, h("p", { class: "muted" }, "Nothing is being written right now."));
  const activity = h("ol", { class: "activity", reversed: true });
  const reportBox = h("div", { class: "report-box" });
  const actions = h("div", { class: "actions" });
  const totals = h("span", { class: "muted" });

  const cancelBtn = h("button", { type: "button", class: "btn small danger", onclick: async () => {
    cancelBtn.disabled = true;
    try { await api(`/v1/runs/${encodeURIComponent(run.id)}/cancel`, { method: "POST" }); } catch (err) { errorBox.textContent = err.message; cancelBtn.disabled = false; }
  } }, "Cancel run");

  const head = h("div", { class: "card run-head" },
    h("div", { class: "row spread" },
      h("div", {},
        h("h2", {}, callTitle(run)),
        h("div", { class: "muted" }, h("code", {}, run.pipeline), " · started ", fmtTime(run.created_at), " · run ", h("code", { class: "run-id" }, run.id))),
      h("div", { class: "row" }, status, link, TERMINAL.has(run.status) ? null : cancelBtn)),
    totals, errorBox, actions);

  const live = h("div", { class: "card live" },
    h("div", { class: "graph-box" }, h("h3", {}, "Pipeline"), graph ? graph.svg : h("p", { class: "error" }, `Unknown pipeline ${run.pipeline}`),
      h("p", { class: "legend muted" }, ["idle", "running", "done", "degraded", "failed", "untaken"].map((st) => h("span", { class: `key key-${st}` }, st)))),
    h("div", { class: "side" }, h("h3", {}, "Writing now"), writing, h("h3", {}, "Events"), activity));

  clear(root).append(head, live, reportBox);

  const writers = new Map();
  const finished = new Set();
  const writerBox = (node) => {
    if (!writers.has(node)) {
      if (!writers.size) clear(writing);
      const pre = h("pre", { class: "stream" });
      const box = h("div", { class: "writer", dataset: { node } }, h("div", { class: "who" }, h("strong", {}, node), " ", h("span", { class: "muted" }, "writing…")), pre);
      writers.set(node, { box, pre, text: "" });
      writing.append(box);
    }
    return writers.get(node);
  };
  const doneWriting = (node) => {
    const w = writers.get(node);
    if (!w) return;
    w.box.remove();
    writers.delete(node);
    if (!writers.size) clear(writing).append(h("p", { class: "muted" }, "Nothing is being written right now."));
  };

  const logEvent = (type, data, seq) => {
    const time = data.at ? new Date(data.at).toLocaleTimeString() : "";
    let text;
    if (type === "run_started") text = `run started${data.resumed ? " (resumed after a restart)" : ""}`;
    else if (type === "node_started") text = `${data.node} started`;
    else if (type === "node_finished") text = `${data.node} finished${data.duration_ms != null ? ` in ${fmtMs(data.duration_ms)}` : ""}${data.tokens ? `, ${fmtInt(data.tokens)} tokens` : ""}${data.outcome !== "ok" ? ` (${data.outcome})` : ""}`;
    else if (type === "error") text = `error${data.node ? ` in ${data.node}` : ""}: ${data.message}`;
    else if (type === "run_finished") text = `run ${data.status}${data.reason ? ` (${data.reason})` : ""}`;
    activity.prepend(h("li", { class: `ev ev-${type}`, dataset: { seq: String(seq), type, node: data.node || null } },
      h("span", { class: "muted" }, time), " ", text,
      data.summary ? h("div", { class: "muted summary" }, data.summary) : null));
  };

  const showResult = async () => {
    const detail = await api(`/v1/runs/${encodeURIComponent(run.id)}`);
    run = detail;
    clear(status).append(statusBadge(detail.status));
    cancelBtn.remove();
    totals.textContent = [
      `${fmtInt(detail.tokens.total)} tokens`,
      detail.started_at && detail.finished_at ? `${fmtMs(new Date(detail.finished_at) - new Date(detail.started_at))} wall time` : null,
      detail.cost_usd != null ? `$${detail.cost_usd.toFixed(4)}` : null,
    ].filter(Boolean).join(" · ");
    if (detail.error) {
      clear(errorBox).append(h("p", { class: "error" }, h("strong", {}, `Run ${detail.status}`), detail.failed_node ? ` in ${detail.failed_node}` : "", `: ${detail.error}`));
    }
    clear(actions);
    if (detail.report) {
      const btn = (label, kind) => h("button", { type: "button", class: "btn small", dataset: { download: kind }, onclick: async (e) => {
        e.target.disabled = true;
        try { await download(detail, kind); } catch (err) { errorBox.textContent = `Download failed: ${err.message}`; } finally { e.target.disabled = false; }
      } }, label);
      actions.append(h("span", { class: "muted" }, "Download "), btn("Markdown", "md"), btn("JSON", "json"), btn("PDF", "pdf"));
      const others = await api(`/v1/runs?limit=200`).then((page) => page.items.filter((r) => r.id !== detail.id && r.transcript_sha256 === detail.transcript_sha256)).catch(() => []);
      if (others.length) {
        const sel = h("select", { "aria-label": "run to compare with" }, others.map((r) => h("option", { value: r.id }, `${r.pipeline} · ${r.status} · ${fmtTime(r.created_at)}`)));
        actions.append(h("span", { class: "compare-pick" }, h("span", { class: "muted" }, " Compare with "), sel,
          h("button", { type: "button", class: "btn small", onclick: () => navigate(`#/compare/${detail.id}/${sel.value}`) }, "Compare")));
      }
      clear(reportBox).append(h("div", { class: "card" }, renderReport(detail, drawer)));
    } else {
      clear(reportBox);
    }
  };

  const stream = followRun(run.id, {
    tokens: true,
    onLink: (state) => {
      link.dataset.link = state;
      link.textContent = { connecting: "connecting…", live: "live", reconnecting: "connection lost, reconnecting…", closed: "" }[state];
    },
    onEvent: (type, data, seq) => {
      if (type === "token") {
        // tokens travel apart from the stored events: one may land after its node finished
        if (finished.has(data.node)) return;
        const w = writerBox(data.node);
        w.text += data.text;
        w.pre.textContent = w.text.length > 1500 ? `…${w.text.slice(-1500)}` : w.text;
        w.pre.scrollTop = w.pre.scrollHeight;
        return;
      }
      if (type === "node_started") finished.delete(data.node);
      if (type === "node_finished" || type === "error") finished.add(data.node);
      graph?.onEvent(type, data);
      logEvent(type, data, seq);
      if (type === "run_started") clear(status).append(statusBadge("running"));
      if (type === "node_finished" || (type === "error" && data.node)) doneWriting(data.node);
      if (type === "error") errorBox.append(h("p", { class: "error" }, data.node ? `${data.node}: ` : "", data.message));
      if (type === "run_finished") {
        for (const node of [...writers.keys()]) doneWriting(node);
        showResult().catch((err) => { errorBox.textContent = err instanceof ApiError ? err.message : String(err); });
      }
    },
  });
  addCleanup(() => stream.close());
}
