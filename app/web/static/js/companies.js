// Companies: the companies whose calls are stored (#/companies), and one company (#/companies/ID)
// with a chart of a chosen line over the quarters (results as points, each period's latest
// outlook as a range drawn against them), its stored calls, and the newest call's track record.

import { api } from "./api.js";
import { clear, fmtTime, h, s } from "./dom.js";

const W = 640;
const H = 260;
const PAD = { left: 64, right: 16, top: 16, bottom: 36 };

function lineName(l) {
  const words = l.metric === "eps" ? "EPS" : l.metric.replace(/_/g, " ");
  const basis = l.basis ? `${l.basis === "gaap" ? "GAAP" : l.basis.replace(/_/g, " ")} ` : "";
  return `${basis}${words}${l.role === "change" ? " growth" : ""}`;
}

function fmtValue(v, unit) {
  if (unit === "percent") return `${v.toLocaleString(undefined, { maximumFractionDigits: 2 })}%`;
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toLocaleString(undefined, { maximumFractionDigits: 2 })}B`;
  if (a >= 1e6) return `${(v / 1e6).toLocaleString(undefined, { maximumFractionDigits: 1 })}M`;
  return v.toLocaleString(undefined, { maximumFractionDigits: 2 });
}

/** The chart of one line: an SVG with a point per result and a bar per guided range. */
export function lineChart(line, periods) {
  const values = [...line.results.map((p) => p.value), ...line.guidance.flatMap((r) => [r.low, r.high])];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) { lo -= Math.abs(lo) * 0.1 || 1; hi += Math.abs(hi) * 0.1 || 1; }
  const span = hi - lo;
  lo -= span * 0.08;
  hi += span * 0.08;
  const x = (period) => PAD.left + (periods.indexOf(period) + 0.5) * ((W - PAD.left - PAD.right) / periods.length);
  const y = (v) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const ticks = [lo, (lo + hi) / 2, hi];
  const results = line.results.filter((p) => periods.includes(p.period));
  return s("svg", { class: "company-chart", viewBox: `0 0 ${W} ${H}`, role: "img",
                    "aria-label": `${lineName(line)} over the quarters` },
    ticks.map((t) => s("g", {},
      s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(t), y2: y(t), class: "grid" }),
      s("text", { x: PAD.left - 6, y: y(t) + 4, "text-anchor": "end", class: "axis" }, fmtValue(t, line.unit)))),
    periods.map((p) => s("text", { x: x(p), y: H - 12, "text-anchor": "middle", class: "axis" }, p)),
    line.guidance.filter((r) => periods.includes(r.period)).map((r) => s("g", { class: "guided", dataset: { period: r.period } },
      s("rect", { x: x(r.period) - 9, y: y(r.high) - (r.low === r.high ? 2 : 0), width: 18,
                  height: Math.max(4, y(r.low) - y(r.high)) }),
      s("title", {}, `${r.period}: guided ${r.text} (in the ${r.guided_in} call)`))),
    results.length > 1 ? s("polyline", { class: "result-line", points: results.map((p) => `${x(p.period)},${y(p.value)}`).join(" ") }) : null,
    results.map((p) => s("g", { class: "result", dataset: { period: p.period } },
      s("circle", { cx: x(p.period), cy: y(p.value), r: 5 }),
      s("title", {}, `${p.period}: ${p.text}`))));
}

export async function companiesView(root) {
  const list = await api("/v1/companies");
  clear(root).append(h("div", { class: "card" },
    h("h2", {}, "Companies"),
    h("p", { class: "muted" }, "Every run's call is kept under its company (by ticker, else by name); ",
      h("code", {}, "earnings-desk ingest DIR"), " reads a folder of past calls."),
    list.length
      ? h("div", { class: "table-wrap" }, h("table", { class: "data companies" },
          h("thead", {}, h("tr", {}, ["Company", "Ticker", "Newest call"].map((t) => h("th", {}, t)))),
          h("tbody", {}, list.map((c) => h("tr", {},
            h("td", {}, h("a", { href: `#/companies/${encodeURIComponent(c.id)}` }, c.company || c.id)),
            h("td", {}, c.ticker || ""), h("td", {}, c.newest_period))))))
      : h("p", {}, "No stored call yet. Run a call with a ticker, or ingest a folder.")));
}

function recordTables(tr) {
  if (!tr) return h("p", { class: "muted" }, "One period stored: no track record yet.");
  const oneSided = new Set(["not reported", "new", "dropped"]);
  const delivered = tr.delivered.filter((d) => !oneSided.has(d.verdict));
  const revised = tr.revisions.filter((r) => !oneSided.has(r.verdict));
  const blocks = [h("h3", {}, `Track record: ${tr.earlier_calls} earlier call(s)`)];
  if (delivered.length) {
    blocks.push(h("h4", {}, "Guidance against what was delivered"), h("table", { class: "data delivered" },
      h("thead", {}, h("tr", {}, ["Line", "Period", "Guided (call)", "Delivered", "Verdict"].map((t) => h("th", {}, t)))),
      h("tbody", {}, delivered.map((d) => h("tr", { dataset: { verdict: d.verdict } },
        h("td", {}, lineName(d)), h("td", {}, d.period), h("td", { title: d.guided_quote }, `${d.guided} (${d.guided_period})`),
        h("td", { title: d.actual_quote || "" }, d.actual), h("td", {}, d.verdict))))));
  }
  if (revised.length) {
    blocks.push(h("h4", {}, "Guidance against the previous call's"), h("table", { class: "data revisions" },
      h("thead", {}, h("tr", {}, ["Line", "Period", "Before", "Now", "Verdict", "The call says"].map((t) => h("th", {}, t)))),
      h("tbody", {}, revised.map((r) => h("tr", { dataset: { verdict: r.verdict } },
        h("td", {}, lineName(r)), h("td", {}, r.period), h("td", { title: r.earlier_quote || "" }, r.earlier),
        h("td", { title: r.now_quote || "" }, r.now), h("td", {}, r.verdict),
        h("td", { class: r.disagrees ? "error" : "" }, r.call_says ? `${r.call_says}${r.disagrees ? " (differs)" : ""}` : ""))))));
  }
  if (!delivered.length && !revised.length) {
    blocks.push(h("p", { class: "muted" }, "No verified figure of the newest call lines up with one of the earlier calls'."));
  }
  return h("div", {}, blocks);
}

export async function companyView(root, id) {
  const c = await api(`/v1/companies/${encodeURIComponent(id)}`);
  const chartBox = h("div", { class: "chart-box" });
  const periods = c.periods;
  const draw = (i) => {
    const line = c.lines[i];
    const all = [...new Set([...periods, ...line.results.map((p) => p.period), ...line.guidance.map((r) => r.period)])];
    const order = (p) => { const [k, y] = p.split(" "); return Number(y) * 10 + ({ Q1: 1, H1: 2, Q2: 2.1, "6M": 2.2, Q3: 3, "9M": 3.1, Q4: 4, H2: 4.1, FY: 4.2 }[k] || 0); };
    all.sort((a, b) => order(a) - order(b));
    clear(chartBox).append(lineChart(line, all),
      h("p", { class: "muted small" }, "Points: each call's verified result for its own period. Bars: the latest outlook given for that period, drawn against it."));
  };
  const select = c.lines.length
    ? h("select", { "aria-label": "line", onchange: (e) => draw(Number(e.target.value)) },
        c.lines.map((l, i) => h("option", { value: String(i) }, lineName(l))))
    : null;
  clear(root).append(h("div", { class: "card" },
    h("div", { class: "row spread" }, h("h2", {}, c.id), select),
    c.lines.length ? chartBox : h("p", { class: "muted" }, "No line is stated in two stored calls yet."),
    recordTables(c.track_record),
    h("h3", {}, `Stored calls (${c.calls.length})`),
    h("table", { class: "data calls" },
      h("thead", {}, h("tr", {}, ["Period", "Stored", "Source", "Run"].map((t) => h("th", {}, t)))),
      h("tbody", {}, c.calls.map((x) => h("tr", { class: x.current ? "" : "muted" },
        h("td", {}, x.period + (x.current ? "" : " (superseded)")), h("td", {}, fmtTime(x.stored_at)),
        h("td", {}, x.source), h("td", {}, x.run_id ? h("a", { href: `#/runs/${x.run_id}` }, x.run_id.slice(0, 10)) : "")))))));
  if (c.lines.length) {  // open on the first line with an outlook to draw against its results
    const first = Math.max(0, c.lines.findIndex((l) => l.guidance.length));
    select.value = String(first);
    draw(first);
  }
}
