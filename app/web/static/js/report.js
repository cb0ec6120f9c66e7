// A finished run's report: recommendations, rendered Markdown with every figure marked as found
// in the call or not, citations that open the transcript passage, the debate/review log, the
// evidence and the per-node trace.

import { api } from "./api.js";
import { clear, fmtInt, fmtMs, h } from "./dom.js";
import { renderInlineMarkdown, renderMarkdown } from "./markdown.js";

const HORIZON = { "1d": "1 day", "1w": "1 week", "1m": "1 month" };

export function positionBadge(position) {
  return h("span", { class: `pos pos-${String(position).toLowerCase()}` }, position);
}

export function recommendationsTable(recs) {
  if (!recs || !recs.length) {
    return h("p", { class: "muted" }, "No recommendations: the parse failed (see the failures above).");
  }
  return h("table", { class: "recs" },
    h("thead", {}, h("tr", {}, ["Horizon", "Position", "Conviction", "Rationale", "Catalysts"].map((t) => h("th", {}, t)))),
    h("tbody", {}, recs.map((r) =>
      h("tr", { dataset: { horizon: r.horizon, position: r.position } },
        h("th", { scope: "row" }, HORIZON[r.horizon] || r.horizon),
        h("td", {}, positionBadge(r.position)),
        h("td", { class: "conviction" },
          h("span", { class: "bar" }, h("span", { class: "fill", style: { width: `${r.conviction}%` } })),
          h("span", { class: "num" }, `${r.conviction}%`)),
        h("td", {}, renderInlineMarkdown(r.rationale)),
        h("td", {}, (r.catalysts || []).length ? h("ul", { class: "plain" }, r.catalysts.map((c) => h("li", {}, c))) : "—"),
      ))));
}

/** Code-point slicing: the server's offsets count Unicode code points, JS strings UTF-16 units. */
function slice(cps, a, b) {
  return cps.slice(Math.max(0, a), Math.max(0, b)).join("");
}

/** The side drawer that shows a transcript passage in its context. */
export class PassageDrawer {
  constructor(runId) {
    this.runId = runId;
    this.text = null;
    this.el = document.getElementById("drawer");
  }

  async transcript() {
    if (this.text == null) {
      const resp = await api(`/v1/runs/${encodeURIComponent(this.runId)}/transcript`, { raw: true });
      this.text = Array.from(await resp.text());
    }
    return this.text;
  }

  async show({ heading, sub, start, end, mark = null, quote = null }) {
    const el = this.el;
    clear(el);
    el.hidden = false;
    const close = h("button", { type: "button", class: "btn small", onclick: () => { el.hidden = true; } }, "Close");
    el.append(h("div", { class: "drawer-head" }, h("div", {}, h("strong", {}, heading), sub ? h("div", { class: "muted" }, sub) : null), close));
    if (quote) el.append(h("blockquote", { class: "fact-quote" }, h("span", { class: "muted" }, "Quote (it wins over the row): "), quote));
    const body = h("div", { class: "passage", "aria-live": "polite" }, "Loading the transcript…");
    el.append(body);
    close.focus();
    try {
      const cps = await this.transcript();
      const [ma, mb] = mark || [start, end];
      clear(body);
      const before = slice(cps, start - 400, start);
      body.append(
        h("span", { class: "context" }, start > 400 ? "…" : "", before),
        h("span", { class: "quoted" },
          slice(cps, start, ma), h("mark", {}, slice(cps, ma, mb)), slice(cps, mb, end)),
        h("span", { class: "context" }, slice(cps, end, end + 400), end + 400 < cps.length ? "…" : ""),
      );
      body.querySelector("mark")?.scrollIntoView({ block: "center" });
    } catch (err) {
      clear(body);
      body.append(h("p", { class: "error" }, `Could not load the transcript: ${err.message}`));
    }
  }
}

function where(c) {
  return [c.section, c.speaker].filter(Boolean).join(" · ");
}

/** Wrap each figure the fact-check looked at: green if the call states it, red if not. */
/** The "Call facts" section: each highlight and each key-figure or guidance row opens the
 * passage of the call that states it (offsets from report.facts, written by code). */
function linkFacts(root, facts, drawer) {
  if (!facts) return;
  const section = (title) => {
    const label = [...root.querySelectorAll("p > strong")].find((s) => s.textContent === title);
    let next = label?.parentElement?.nextElementSibling || null;
    // "Read by code, unconfirmed" has a note between its label and its table
    if (next?.tagName === "P" && next.nextElementSibling?.querySelector?.("tbody")) {
      next = next.nextElementSibling;
    }
    return next;
  };
  const open = (heading, row, [start, end]) => drawer.show({
    heading, sub: [row.speaker, row.section].filter(Boolean).join(" · "),
    start: Math.max(0, start - 200), end: end + 200, mark: [start, end], quote: row.sentence,
  });
  const rows = (title, items, label) => {
    const body = section(title)?.querySelector("tbody");
    if (!body) return;
    [...body.rows].forEach((tr, i) => {
      const item = items[i];
      const cell = tr.cells[1];
      if (!item || !cell) return;
      // the button is the figure as stated; what the row adds ("(change, up)") stays beside it
      const text = cell.textContent;
      const stated = text.startsWith(item.text) ? item.text : text;
      const heading = `${label(item)}: ${item.text} (${[item.period || "period not stated", item.role].join(", ")})`;
      cell.replaceChildren(h("button", { type: "button", class: "fig grounded fact", dataset: { fact: title },
        title: "Stated in the call: open the passage", onclick: () => open(heading, item, [item.start, item.end]) },
        stated), text.slice(stated.length));
      // checked against the filing (code): the verdict beside the figure, never a correction
      if (item.filing) {
        const differs = item.filing.startsWith("differs");
        cell.append(h("span", { class: differs ? "filing differs" : "filing" }, ` · ${item.filing}`));
      }
    });
  };
  rows("Key figures", facts.key_figures || [], (k) => k.label);
  rows("Guidance", facts.guidance || [], (g) => `Guidance, ${g.label}`);
  // rows read by rules that have not earned "verified": key figures, then guidance
  rows("Read by code, unconfirmed",
    [...(facts.unconfirmed_key_figures || []), ...(facts.unconfirmed_guidance || [])],
    (r) => `Unconfirmed: ${"direction" in r ? `guidance, ${r.label}` : r.label}`);
  const list = section("Highlights");
  if (list) {
    [...list.querySelectorAll(":scope > li")].forEach((li, i) => {
      const hl = facts.highlights?.[i];
      if (!hl || !hl.spans?.length) return;
      li.replaceChildren(h("button", { type: "button", class: "linkish fact", dataset: { fact: "Highlights" },
        title: "Open the passage it comes from", onclick: () => open(hl.text, {}, hl.spans[0]) }, li.textContent));
    });
  }
}

const ORIGINS = {
  call: "stated in the call", statements: "stated in the statements", computed: "computed by code",
  market: "market data", consensus: "vendor consensus",
};

// Where a supported figure comes from: the call's words, or the provenance code recorded (the
// statement field and quarter, a computed figure's formula, the market series and indicator).
function origin(check) {
  if (check.origin === "call" || !check.provenance) {
    return `Stated in the ${check.source_index === 1 ? "financial data" : "call"}: “${check.source_text}”`;
  }
  return `${ORIGINS[check.origin] || check.origin}: ${check.provenance.replace(/^[a-z ]+: /, "")}`;
}

function markFigures(root, numbers, onFigure) {
  const checks = (numbers || []).filter((n) => n.text);
  if (!checks.length) return;
  const byText = new Map(checks.map((n) => [n.text, n]));
  const esc = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const alts = [...byText.keys()].sort((a, b) => b.length - a.length).map(esc);
  const re = new RegExp(`(?<![\\w.,$])(?:${alts.join("|")})(?![\\d])`, "g");
  const skip = (el) => el.closest("code, pre, button, .footnotes, .apparatus");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const targets = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!skip(node.parentElement)) targets.push(node);
  }
  for (const node of targets) {
    const text = node.nodeValue;
    re.lastIndex = 0;
    if (!re.test(text)) continue;
    re.lastIndex = 0;
    const frag = document.createDocumentFragment();
    let last = 0;
    for (const m of text.matchAll(re)) {
      const check = byText.get(m[0]);
      frag.append(text.slice(last, m.index));
      const tip = check.grounded
        ? origin(check)
        : `No source: not in the call, the statements, the market data or the consensus${check.flagged ? " (footnoted as unverified)" : ""}`;
      frag.append(h("button", {
        type: "button", class: `fig ${check.grounded ? "grounded" : "ungrounded"}`, title: tip,
        dataset: { figure: check.text, grounded: String(check.grounded) },
        onclick: () => onFigure(check),
      }, m[0]));
      last = m.index + m[0].length;
    }
    frag.append(text.slice(last));
    node.replaceWith(frag);
  }
}

/** Everything after the "Recommendations" heading (our own table) is not the model's prose. */
function tagApparatus(md) {
  let inApparatus = false;
  for (const el of Array.from(md.children)) {
    if (/^H[1-6]$/.test(el.tagName)) inApparatus = /^recommendations$/i.test(el.textContent.trim());
    if (inApparatus) el.classList.add("apparatus");
  }
  const first = md.querySelector("p");
  if (first && first.textContent.startsWith("Pipeline ")) first.classList.add("apparatus");
}

function logEntries(report) {
  const x = report.extras || {};
  if (report.debate && (report.debate.turns?.length || report.debate.skipped_reason)) {
    return report.debate.turns.map((t) => ({ who: t.speaker, meta: t.model, text: t.text }));
  }
  if (x.adversarial) {
    return (x.adversarial.debate || []).map((a) => ({ who: a.speaker, meta: `${a.act} · ${a.model}`, text: a.text }));
  }
  if (x.writer_feedback) {
    return (x.writer_feedback.reviews || []).map((r) => ({
      who: r.reviewer, meta: `iteration ${r.iteration} · ${r.approved ? "approved" : "changes asked"} · ${r.model}`, text: r.text,
    }));
  }
  if (x.conversation) {
    return x.conversation.map((t) => ({ who: t.speaker, meta: `round ${t.round} · ${t.model}`, text: t.text }));
  }
  return [];
}

function decisionBox(report) {
  const d = report.debate;
  if (!d) return null;
  if (d.skipped_reason) return h("div", { class: "callout" }, h("strong", {}, "Debate skipped: "), d.skipped_reason);
  if (!d.decision) return null;
  return h("div", { class: `callout ${d.decision.reverted ? "warn" : "ok"}`, dataset: { decision: d.decision.reverted ? "reverted" : "accepted" } },
    h("strong", {}, d.decision.reverted
      ? "Guard reverted the debate: the report is the pre-debate synthesis."
      : "Guard accepted the debate: the leader's report kept the synthesis's calls."),
    d.decision.reasons?.length ? h("ul", {}, d.decision.reasons.map((r) => h("li", {}, r))) : null);
}

function adversarialSummary(extras) {
  const a = extras?.adversarial;
  if (!a) return null;
  return h("div", { class: "callout" },
    a.verdict ? h("p", {}, h("strong", {}, `Verdict: ${a.verdict.winner}. `), a.verdict.justification) : null,
    a.weakest_link ? h("p", {}, h("strong", {}, "Weakest link: "), typeof a.weakest_link === "string" ? a.weakest_link : JSON.stringify(a.weakest_link)) : null);
}

function writerSummary(extras) {
  const w = extras?.writer_feedback;
  if (!w) return null;
  const rows = Object.entries(w.candidates || {}).map(([v, c]) =>
    h("tr", { class: v === w.chosen ? "chosen" : "" },
      h("td", {}, v, v === w.chosen ? " (chosen)" : ""), h("td", {}, c.model), h("td", {}, fmtInt(c.words)),
      h("td", {}, c.grade ? Object.entries(c.grade).filter(([k, val]) => typeof val === "number").map(([k, val]) => `${k} ${val}`).join(", ") : "—")));
  return h("div", {}, h("h4", {}, "Candidates"),
    h("table", { class: "data" }, h("thead", {}, h("tr", {}, ["Variant", "Model", "Words", "Grade"].map((t) => h("th", {}, t)))), h("tbody", {}, rows)));
}

function tabs(sections) {
  const bar = h("div", { class: "tabs", role: "tablist" });
  const panels = h("div", {});
  const select = (i) => {
    [...bar.children].forEach((b, k) => b.setAttribute("aria-selected", String(k === i)));
    [...panels.children].forEach((p, k) => { p.hidden = k !== i; });
  };
  sections.forEach(([label, body], i) => {
    bar.append(h("button", { type: "button", role: "tab", dataset: { tab: label.toLowerCase() }, onclick: () => select(i) }, label));
    panels.append(h("div", { role: "tabpanel", dataset: { panel: label.toLowerCase() } }, body));
  });
  select(0);
  return h("div", { class: "tabbed" }, bar, panels);
}

export function groundingLine(report) {
  const nums = report.evidence?.numbers || [];
  const ok = nums.filter((n) => n.grounded).length;
  return nums.length ? `${ok} of ${nums.length} figures found in the call` : "no figures to check";
}

/** The whole report panel for a run (RunDetail with a report). */
export function renderReport(run, drawer) {
  const report = run.report;
  const cites = new Map((report.evidence?.citations || []).map((c) => [c.chunk_id, c]));
  const passages = new Map((report.evidence?.passages || []).map((p) => [p.chunk_id, p]));
  const openChunk = (id) => {
    const c = cites.get(id) || passages.get(id);
    if (!c) {
      drawer.el.hidden = false;
      clear(drawer.el).append(h("p", { class: "error" }, `The report cites ${id}, which is not a passage of this call (an invented citation).`));
      return;
    }
    drawer.show({ heading: `Passage ${id}`, sub: where(c), start: c.start, end: c.end });
  };
  const openFigure = (check) => {
    if (check.grounded && check.source_index === 0 && check.source_start != null) {
      const c = check.chunk_id && (cites.get(check.chunk_id) || passages.get(check.chunk_id));
      const start = c ? c.start : check.source_start - 200;
      const end = c ? c.end : check.source_end + 200;
      drawer.show({ heading: `${check.text}: stated in the call as “${check.source_text}”`, sub: c ? where(c) : "",
                    start, end, mark: [check.source_start, check.source_end] });
    } else {
      drawer.el.hidden = false;
      clear(drawer.el).append(
        h("div", { class: "drawer-head" }, h("strong", {}, check.text),
          h("button", { type: "button", class: "btn small", onclick: () => { drawer.el.hidden = true; } }, "Close")),
        h("p", {}, check.grounded ? origin(check) : "No source: not stated in the call, the statements, the market data or the consensus, nor computed from them."),
        check.flagged ? h("p", { class: "muted" }, "Still unsupported after the fact-check: footnoted as unverified.") : null,
        h("p", { class: "muted" }, "In the report: ", check.context));
    }
  };

  const md = renderMarkdown(report.markdown, { onCite: openChunk });
  tagApparatus(md);
  // where the paper fixes the report's format, code's sections come as a block of their own
  const appendix = report.appendix ? renderMarkdown(report.appendix, { headingShift: 1 }) : null;
  linkFacts(appendix || md, report.facts, drawer);
  markFigures(md, report.evidence?.numbers, openFigure);
  const reportTab = appendix
    ? h("div", {}, md, h("aside", { class: "appendix" },
        h("h3", {}, "Written by code, outside the report's format"), appendix))
    : md;

  const nums = report.evidence?.numbers || [];
  const figureTable = nums.length
    ? h("table", { class: "data figures" },
        h("thead", {}, h("tr", {}, ["Figure", "Where from", "Source", "Report context"].map((t) => h("th", {}, t)))),
        h("tbody", {}, nums.map((n) => h("tr", { class: n.grounded ? "grounded" : "ungrounded" },
          h("td", {}, h("button", { type: "button", class: `fig ${n.grounded ? "grounded" : "ungrounded"}`, onclick: () => openFigure(n) }, n.text)),
          h("td", {}, n.grounded ? ORIGINS[n.origin] || "the call" : n.flagged ? "unsupported (footnoted)" : "unsupported"),
          h("td", {}, n.origin === "call" ? n.source_text || "—" : n.provenance || n.source_text || "—"),
          h("td", { class: "muted" }, n.context)))))
    : h("p", { class: "muted" }, "The report states no figures.");
  const fc = report.evidence?.fact_check;
  const factCheck = fc
    ? h("p", { class: "muted" },
        fc.enabled
          ? `Fact-check: ${fc.checked} figures checked; ${fc.ungrounded_before.length} unsupported before, ` +
            `${fc.correction_attempted ? (fc.corrected ? "correction applied" : "correction refused") : "no correction needed"}; ` +
            `${fc.still_ungrounded.length} still unsupported.`
          : "Fact-check correction off: unsupported figures are flagged only.",
        fc.note ? ` ${fc.note}` : "")
    : null;
  const passageList = (report.evidence?.passages || []).map((p) =>
    h("li", {}, h("button", { type: "button", class: "cite", onclick: () => openChunk(p.chunk_id) }, p.chunk_id),
      " ", h("span", { class: "muted" }, [where(p), (p.dimensions || []).join(", ")].filter(Boolean).join(" — ")),
      h("div", { class: "snippet" }, p.text.length > 280 ? `${p.text.slice(0, 280)}…` : p.text)));

  const log = logEntries(report);
  const logPanel = h("div", {},
    decisionBox(report), adversarialSummary(report.extras), writerSummary(report.extras),
    log.length
      ? h("ol", { class: "log" }, log.map((e) => h("li", {}, h("div", { class: "who" }, h("strong", {}, e.who), " ", h("span", { class: "muted" }, e.meta)), renderMarkdown(e.text, { headingShift: 3 }))))
      : h("p", { class: "muted" }, "This pipeline keeps no debate or review log."));

  const trace = h("table", { class: "data" },
    h("thead", {}, h("tr", {}, ["Node", "Outcome", "Time", "Model(s)", "Calls", "Cached", "Retries", "Tokens"].map((t) => h("th", {}, t)))),
    h("tbody", {}, (report.trace || []).map((t) => h("tr", { class: `outcome-${t.outcome}` },
      h("td", {}, t.node), h("td", {}, t.outcome, t.detail ? h("div", { class: "muted" }, t.detail) : null),
      h("td", { class: "num" }, fmtMs(t.duration_ms)), h("td", {}, (t.models || []).join(", ")),
      h("td", { class: "num" }, t.calls), h("td", { class: "num" }, t.cached_calls), h("td", { class: "num" }, t.retries),
      h("td", { class: "num" }, fmtInt(t.prompt_tokens + t.completion_tokens))))));

  const failures = report.failures?.length
    ? h("div", { class: "callout warn" }, h("strong", {}, "Degraded: "),
        h("ul", {}, report.failures.map((f) => h("li", {}, h("code", {}, f.node), ": ", f.reason))))
    : null;

  return h("section", { class: "report", dataset: { status: report.status } },
    failures,
    h("h3", {}, "Recommendations"),
    recommendationsTable(report.recommendations),
    h("p", { class: "muted grounding" }, groundingLine(report), " · ",
      h("span", { class: "fig grounded legend" }, "found in the call"), " ",
      h("span", { class: "fig ungrounded legend" }, "not found")),
    tabs([
      ["Report", reportTab],
      ["Evidence", h("div", {}, factCheck, figureTable, passageList.length ? h("h4", {}, "Passages the analysis used") : null, h("ul", { class: "passages" }, passageList))],
      ["Log", logPanel],
      ["Trace", trace],
    ]));
}
