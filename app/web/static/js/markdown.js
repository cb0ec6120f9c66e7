// A small Markdown renderer that builds DOM nodes directly (never innerHTML): raw HTML in the
// source is shown as the text it is. Covers what reports use: headings, paragraphs, lists,
// tables, quotes, rules, code, emphasis, links (http/https only), footnotes and the pipeline's
// `[chunk-id]` citations, which become buttons (onCite).

import { h } from "./dom.js";

const CITATION = /^\[([0-9a-f]{6,12}-f?\d{4})\]/;
const FOOTNOTE_REF = /^\[\^([\w-]+)\]/;
const LINK = /^\[([^\]\n]+)\]\(([^)\s]+)\)/;
const CODE = /^(`+)([\s\S]*?[^`])\1(?!`)/;
const STRONG = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/;
const EM_STAR = /^\*(?=\S)([\s\S]*?\S)\*/;
const EM_UNDER = /^_(?=\S)([\s\S]*?\S)_(?![\w])/;
const SPECIAL = /[`[*_]/;

/** Inline Markdown -> nodes. */
export function inline(text, ctx) {
  const out = [];
  let plain = "";
  let i = 0;
  const flush = () => {
    if (plain) out.push(document.createTextNode(plain));
    plain = "";
  };
  while (i < text.length) {
    const rest = text.slice(i);
    const c = rest[0];
    if (!SPECIAL.test(c)) {
      const next = rest.search(SPECIAL);
      const take = next === -1 ? rest.length : next;
      plain += rest.slice(0, take);
      i += take;
      continue;
    }
    let m;
    if ((m = CODE.exec(rest))) {
      flush();
      out.push(h("code", {}, m[2].trim()));
    } else if ((m = CITATION.exec(rest))) {
      flush();
      const id = m[1];
      out.push(
        h("button", { type: "button", class: "cite", title: `transcript passage ${id}`,
                      dataset: { chunk: id }, onclick: () => ctx.onCite && ctx.onCite(id) }, id),
      );
    } else if ((m = FOOTNOTE_REF.exec(rest))) {
      flush();
      const id = m[1];
      if (!ctx.footnoteRefs.includes(id)) ctx.footnoteRefs.push(id);
      out.push(
        h("sup", { class: "fnref" },
          h("button", { type: "button", class: "linkish", dataset: { fn: id },
                        onclick: () => ctx.root?.querySelector(`[data-fn-def="${CSS.escape(id)}"]`)
                          ?.scrollIntoView({ block: "center" }) },
                    `[${ctx.footnoteRefs.indexOf(id) + 1}]`)),
      );
    } else if ((m = LINK.exec(rest))) {
      flush();
      const url = m[2];
      if (/^https?:\/\//i.test(url)) {
        out.push(h("a", { href: url, target: "_blank", rel: "noopener noreferrer" },
                   inline(m[1], ctx)));
      } else {
        out.push(...inline(m[1], ctx));
      }
    } else if ((m = STRONG.exec(rest))) {
      flush();
      out.push(h("strong", {}, inline(m[2], ctx)));
    } else if (c === "*" && (m = EM_STAR.exec(rest))) {
      flush();
      out.push(h("em", {}, inline(m[1], ctx)));
    } else if (c === "_" && !/\w/.test(text[i - 1] || "") && (m = EM_UNDER.exec(rest))) {
      flush();
      out.push(h("em", {}, inline(m[1], ctx)));
    } else {
      plain += c;
      i += 1;
      continue;
    }
    i += m[0].length;
  }
  flush();
  return out;
}

/** Soft line breaks inside a paragraph are kept (reports write "Position: X\nConviction: Y"). */
function lines(text, ctx) {
  const out = [];
  text.split("\n").forEach((line, n) => {
    if (n) out.push(h("br"));
    out.push(...inline(line.trim(), ctx));
  });
  return out;
}

const HR = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^ {0,3}(```|~~~)/;
const BULLET = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const FOOTNOTE_DEF = /^\[\^([\w-]+)\]:\s*(.*)$/;

function cells(row) {
  let r = row.trim();
  if (r.startsWith("|")) r = r.slice(1);
  if (r.endsWith("|") && !r.endsWith("\\|")) r = r.slice(0, -1);
  return r.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function blocks(src, ctx) {
  const out = [];
  const ls = src.split("\n");
  let i = 0;
  const isBlank = (l) => !l || !l.trim();
  while (i < ls.length) {
    const line = ls[i];
    let m;
    if (isBlank(line)) {
      i += 1;
    } else if ((m = FENCE.exec(line))) {
      const fence = m[1];
      const body = [];
      i += 1;
      while (i < ls.length && !ls[i].trim().startsWith(fence)) body.push(ls[i++]);
      i += 1;
      out.push(h("pre", {}, h("code", {}, body.join("\n"))));
    } else if ((m = HEADING.exec(line))) {
      const level = m[1].length;
      out.push(h(`h${Math.min(6, level + ctx.headingShift)}`, {}, inline(m[2], ctx)));
      i += 1;
    } else if (HR.test(line)) {
      out.push(h("hr"));
      i += 1;
    } else if (FOOTNOTE_DEF.test(line)) {
      // kept where they stand: reports put them before the Recommendations section
      const defs = [];
      while (i < ls.length && (m = FOOTNOTE_DEF.exec(ls[i]))) {
        const body = [m[2]];
        i += 1;
        while (i < ls.length && /^\s{2,}\S/.test(ls[i])) body.push(ls[i++].trim());
        while (i < ls.length && isBlank(ls[i]) && FOOTNOTE_DEF.test(ls[i + 1] || "")) i += 1;
        defs.push({ id: m[1], text: body.join(" ") });
      }
      out.push(
        h("ol", { class: "footnotes" },
          defs.map((d) => {
            const n = ctx.footnoteRefs.indexOf(d.id);
            return h("li", { dataset: { fnDef: d.id }, value: n >= 0 ? n + 1 : null },
                     inline(d.text, ctx));
          })),
      );
    } else if (line.includes("|") && i + 1 < ls.length && TABLE_SEP.test(ls[i + 1])) {
      const head = cells(line);
      const rows = [];
      i += 2;
      while (i < ls.length && !isBlank(ls[i]) && ls[i].includes("|")) rows.push(cells(ls[i++]));
      out.push(
        h("div", { class: "table-wrap" },
          h("table", {},
            h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, inline(c, ctx))))),
            h("tbody", {}, rows.map((r) => h("tr", {}, head.map((_, k) => h("td", {}, inline(r[k] || "", ctx)))))))),
      );
    } else if (/^\s{0,3}>/.test(line)) {
      const body = [];
      while (i < ls.length && /^\s{0,3}>/.test(ls[i])) body.push(ls[i++].replace(/^\s{0,3}>\s?/, ""));
      out.push(h("blockquote", {}, blocks(body.join("\n"), ctx)));
    } else if ((m = BULLET.exec(line))) {
      const ordered = /\d/.test(m[2]);
      const indent = m[1].length;
      const items = [];
      while (i < ls.length) {
        const im = BULLET.exec(ls[i]);
        if (im && im[1].length === indent && /\d/.test(im[2]) === ordered) {
          items.push([im[3]]);
          i += 1;
        } else if (!isBlank(ls[i]) && items.length && (/^\s/.test(ls[i]) && (ls[i].search(/\S/) > indent))) {
          items[items.length - 1].push(ls[i].slice(Math.min(ls[i].search(/\S/), indent + 2)));
          i += 1;
        } else if (isBlank(ls[i]) && i + 1 < ls.length && (BULLET.exec(ls[i + 1])?.[1].length === indent)) {
          i += 1;
        } else break;
      }
      out.push(
        h(ordered ? "ol" : "ul", {},
          items.map(([first, ...more]) =>
            h("li", {}, inline(first, ctx), more.length ? blocks(more.join("\n"), ctx) : null))),
      );
    } else {
      const para = [];
      while (
        i < ls.length && !isBlank(ls[i]) && !HEADING.test(ls[i]) && !FENCE.test(ls[i]) &&
        !HR.test(ls[i]) && !/^\s{0,3}>/.test(ls[i]) && !FOOTNOTE_DEF.test(ls[i]) &&
        !(para.length && BULLET.test(ls[i])) &&
        !(ls[i].includes("|") && i + 1 < ls.length && TABLE_SEP.test(ls[i + 1]))
      ) {
        para.push(ls[i++]);
      }
      if (!para.length) para.push(ls[i++]);
      out.push(h("p", {}, lines(para.join("\n"), ctx)));
    }
  }
  return out;
}

/**
 * Render Markdown into a new <div class="md">. Options: onCite(chunkId) for citation buttons,
 * headingShift to demote headings.
 */
export function renderMarkdown(src, { onCite = null, headingShift = 0 } = {}) {
  const root = h("div", { class: "md" });
  const ctx = { onCite, headingShift, footnoteRefs: [], root };
  root.append(...blocks(String(src || "").replace(/\r\n?/g, "\n"), ctx));
  return root;
}
