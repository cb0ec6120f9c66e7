// Past runs, newest first: filter by status and pipeline, open any, pick two of the same call
// to compare.

import { api, pipelines } from "./api.js";
import { clear, fmtInt, fmtTime, h } from "./dom.js";
import { statusBadge } from "./run.js";

const PAGE = 25;
const STATUSES = ["queued", "running", "succeeded", "degraded", "failed", "cancelled"];

export async function historyView(root, navigate, params) {
  const infos = await pipelines();
  const offset = Number(params.get("offset") || 0);
  const status = params.get("status") || "";
  const pipeline = params.get("pipeline") || "";
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (status) query.set("status", status);
  if (pipeline) query.set("pipeline", pipeline);
  const go = (changes) => {
    const next = new URLSearchParams({ status, pipeline, offset: "0", ...changes });
    for (const [k, v] of [...next]) if (!v || v === "0") next.delete(k);
    navigate(`#/history${next.toString() ? `?${next}` : ""}`);
  };
  const statusSel = h("select", { "aria-label": "status", onchange: (e) => go({ status: e.target.value }) },
    h("option", { value: "" }, "any status"), STATUSES.map((s) => h("option", { value: s }, s)));
  statusSel.value = status;
  const pipeSel = h("select", { "aria-label": "pipeline", onchange: (e) => go({ pipeline: e.target.value }) },
    h("option", { value: "" }, "any pipeline"), infos.map((p) => h("option", { value: p.name }, p.name)));
  pipeSel.value = pipeline;

  const page = await api(`/v1/runs?${query}`);
  const picked = new Map();
  const note = h("span", { class: "muted" }, "Tick two runs of the same call to compare them.");
  const compareBtn = h("button", { type: "button", class: "btn small", disabled: true, onclick: () => {
    const [a, b] = [...picked.keys()];
    navigate(`#/compare/${a}/${b}`);
  } }, "Compare");
  const refresh = () => {
    const runs = [...picked.values()];
    const same = runs.length === 2 && runs[0].transcript_sha256 === runs[1].transcript_sha256;
    compareBtn.disabled = !same;
    note.textContent = runs.length === 2 && !same
      ? "Those two runs are on different calls: pick two runs of the same transcript."
      : "Tick two runs of the same call to compare them.";
    note.classList.toggle("error", runs.length === 2 && !same);
  };

  const rows = page.items.map((r) => {
    const box = h("input", { type: "checkbox", "aria-label": `select run ${r.id}`, onchange: (e) => {
      if (e.target.checked) {
        picked.set(r.id, r);
        if (picked.size > 2) {
          const first = picked.keys().next().value;
          picked.delete(first);
          root.querySelector(`tr[data-run="${first}"] input`).checked = false;
        }
      } else picked.delete(r.id);
      refresh();
    } });
    const c = r.call || {};
    return h("tr", { dataset: { run: r.id, status: r.status } },
      h("td", {}, box),
      h("td", {}, h("a", { href: `#/runs/${r.id}` }, [c.company, c.ticker && `(${c.ticker})`, c.period].filter(Boolean).join(" ") || r.id.slice(0, 10))),
      h("td", {}, h("code", {}, r.pipeline)),
      h("td", {}, statusBadge(r.status), r.error ? h("div", { class: "muted small" }, r.failed_node ? `${r.failed_node}: ` : "", r.error.length > 120 ? `${r.error.slice(0, 120)}…` : r.error) : null),
      h("td", {}, fmtTime(r.created_at)),
      h("td", { class: "num" }, fmtInt(r.tokens.total)),
      h("td", { class: "muted small" }, h("code", {}, r.transcript_sha256.slice(0, 8))));
  });
  const pager = h("div", { class: "row" },
    h("span", { class: "muted" }, page.total ? `${offset + 1}–${offset + page.items.length} of ${page.total}` : "No runs yet."),
    offset > 0 ? h("button", { type: "button", class: "btn small", onclick: () => go({ offset: String(Math.max(0, offset - PAGE)) }) }, "Newer") : null,
    offset + PAGE < page.total ? h("button", { type: "button", class: "btn small", onclick: () => go({ offset: String(offset + PAGE) }) }, "Older") : null);

  clear(root).append(h("div", { class: "card" },
    h("div", { class: "row spread" }, h("h2", {}, "History"), h("div", { class: "row" }, statusSel, pipeSel)),
    h("div", { class: "row" }, compareBtn, note),
    page.items.length
      ? h("div", { class: "table-wrap" }, h("table", { class: "data history" },
          h("thead", {}, h("tr", {}, ["", "Call", "Pipeline", "Status", "Started", "Tokens", "Call id"].map((t) => h("th", {}, t)))),
          h("tbody", {}, rows)))
      : h("p", {}, "No runs match. ", h("a", { href: "#/new" }, "Start one.")),
    pager));
}
