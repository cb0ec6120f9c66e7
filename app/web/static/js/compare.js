// Two runs of the same call side by side: their calls per horizon (disagreements marked),
// grounding, cost and time, then both reports.

import { api } from "./api.js";
import { clear, fmtInt, fmtMs, h } from "./dom.js";
import { PassageDrawer, groundingLine, positionBadge, renderReport } from "./report.js";
import { statusBadge } from "./run.js";

const HORIZONS = [["1d", "1 day"], ["1w", "1 week"], ["1m", "1 month"]];

function wall(r) {
  return r.started_at && r.finished_at ? fmtMs(new Date(r.finished_at) - new Date(r.started_at)) : "—";
}

export async function compareView(root, a, b) {
  const runs = await Promise.all([a, b].map((id) => api(`/v1/runs/${encodeURIComponent(id)}`)));
  const [x, y] = runs;
  const warn = x.transcript_sha256 !== y.transcript_sha256
    ? h("p", { class: "callout warn" }, "These runs are on different transcripts: the comparison is of different calls.")
    : null;
  const rec = (r, hz) => (r.report?.recommendations || []).find((q) => q.horizon === hz);
  const cell = (q) => (q ? h("span", {}, positionBadge(q.position), ` ${q.conviction}%`) : h("span", { class: "muted" }, "—"));
  const head = (r) => h("th", {}, h("a", { href: `#/runs/${r.id}` }, h("code", {}, r.pipeline)), " ", statusBadge(r.status));
  const table = h("table", { class: "data compare" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), head(x), head(y))),
    h("tbody", {},
      HORIZONS.map(([hz, label]) => {
        const qa = rec(x, hz);
        const qb = rec(y, hz);
        const differ = qa && qb && qa.position !== qb.position;
        return h("tr", { class: differ ? "differ" : "", dataset: { horizon: hz, differ: String(Boolean(differ)) } },
          h("th", { scope: "row" }, label), h("td", {}, cell(qa)), h("td", {}, cell(qb)));
      }),
      h("tr", {}, h("th", { scope: "row" }, "Figures"), ...runs.map((r) => h("td", {}, r.report ? groundingLine(r.report) : "—"))),
      h("tr", {}, h("th", { scope: "row" }, "Tokens"), ...runs.map((r) => h("td", {}, fmtInt(r.tokens.total)))),
      h("tr", {}, h("th", { scope: "row" }, "Wall time"), ...runs.map((r) => h("td", {}, wall(r)))),
      h("tr", {}, h("th", { scope: "row" }, "Model(s)"), ...runs.map((r) => h("td", {}, [...new Set(Object.values(r.report?.models || {}))].join(", ") || "—")))));
  const column = (r) => h("div", { class: "card" }, h("h3", {}, h("code", {}, r.pipeline)),
    r.report ? renderReport(r, new PassageDrawer(r.id)) : h("p", { class: "muted" }, `No report (${r.status}${r.error ? `: ${r.error}` : ""}).`));
  clear(root).append(
    h("div", { class: "card" }, h("h2", {}, "Compare runs"), warn, h("div", { class: "table-wrap" }, table)),
    h("div", { class: "columns" }, column(x), column(y)));
}
