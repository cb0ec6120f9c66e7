// Markdown -> DOM. markdown-it (vendored, ../vendor/markdown-it) parses, with the same preset as
// the server's PDF (commonmark + tables, raw HTML off); this module turns its tokens into DOM
// nodes with h() (never innerHTML), so raw HTML in the source is shown as the text it is.
// Links are kept only for http(s) and in-page anchors; images print as their alt text (never
// fetched); the pipeline's `[chunk-id]` citations become buttons (onCite), `[^id]` footnote
// references jump to their definitions.

import markdownit from "../vendor/markdown-it/markdown-it.min.js";
import { h } from "./dom.js";

const SAFE_LINK = /^(https?:\/\/|#)/i;
const md = markdownit("commonmark", { html: false, breaks: true }).enable("table");
md.validateLink = (url) => SAFE_LINK.test(url.trim());

const CITATION = /\[([0-9a-f]{6,12}-f?\d{4})\]/g;
const FOOTNOTE_REF = /\[\^([\w-]+)\](?!:)/g;
const FOOTNOTE_DEF = /^\[\^([\w-]+)\]:\s*/;
const TOKENS = new RegExp(`${CITATION.source}|${FOOTNOTE_REF.source}`, "g");
const BLOCK_TAGS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li",
  "blockquote", "table", "thead", "tbody", "tr", "th", "td"]);
const INLINE_TAGS = { em_open: "em", strong_open: "strong" };

/** Plain text with citations and footnote references turned into buttons. */
function text(value, ctx) {
  const out = [];
  let last = 0;
  for (const m of value.matchAll(TOKENS)) {
    out.push(value.slice(last, m.index));
    if (m[1]) {
      const id = m[1];
      out.push(h("button", { type: "button", class: "cite", title: `transcript passage ${id}`,
                             dataset: { chunk: id }, onclick: () => ctx.onCite && ctx.onCite(id) }, id));
    } else {
      const id = m[2];
      if (!ctx.footnoteRefs.includes(id)) ctx.footnoteRefs.push(id);
      out.push(h("sup", { class: "fnref" },
        h("button", { type: "button", class: "linkish", dataset: { fn: id },
                      onclick: () => ctx.root.querySelector(`[data-fn-def="${CSS.escape(id)}"]`)
                        ?.scrollIntoView({ block: "center" }) },
          `[${ctx.footnoteRefs.indexOf(id) + 1}]`)));
    }
    last = m.index + m[0].length;
  }
  out.push(value.slice(last));
  return out.filter((x) => x !== "");
}

function link(href, ctx) {
  if (href.startsWith("#")) {
    return h("a", { href, onclick: (ev) => {
      ev.preventDefault(); // the page routes on the hash: scroll inside the report instead
      ctx.root.querySelector(`[id="${CSS.escape(href.slice(1))}"]`)?.scrollIntoView();
    } });
  }
  return h("a", { href, target: "_blank", rel: "noopener noreferrer" });
}

/** An inline token's children -> nodes appended to `parent`. */
function inline(children, parent, ctx) {
  const stack = [parent];
  const top = () => stack[stack.length - 1];
  let pending = "";
  const flush = () => {
    if (pending) top().append(...text(pending, ctx));
    pending = "";
  };
  for (const t of children) {
    if (t.type === "text") { pending += t.content; continue; }
    flush();
    if (t.type === "softbreak" || t.type === "hardbreak") top().append(h("br"));
    else if (t.type === "code_inline") top().append(h("code", {}, t.content));
    else if (t.type === "image") top().append(t.content); // the alt text, never fetched
    else if (INLINE_TAGS[t.type]) stack.push(top().appendChild(h(INLINE_TAGS[t.type])));
    else if (t.type === "link_open") stack.push(top().appendChild(link(t.attrGet("href") || "", ctx)));
    else if (t.nesting === -1 && stack.length > 1) stack.pop();
    else if (t.content) top().append(t.content); // anything else: as text
  }
  flush();
}

/** A paragraph of `[^id]: text` lines -> items of the footnote list. */
function footnotes(children, parent, ctx) {
  let list = parent.lastElementChild;
  if (!list || !list.matches("ol.footnotes")) list = parent.appendChild(h("ol", { class: "footnotes" }));
  let item = null;
  let segment = [];
  const close = () => {
    if (item) inline(segment, item, ctx);
    segment = [];
  };
  children.forEach((t, n) => {
    const starts = (n === 0 || children[n - 1].type === "softbreak") && t.type === "text";
    const m = starts ? FOOTNOTE_DEF.exec(t.content) : null;
    if (m) {
      close();
      const at = ctx.footnoteRefs.indexOf(m[1]);
      item = list.appendChild(h("li", { dataset: { fnDef: m[1] }, value: at >= 0 ? at + 1 : null }));
      segment.push({ ...t, content: t.content.slice(m[0].length) });
    } else if (!(t.type === "softbreak" && FOOTNOTE_DEF.test(children[n + 1]?.content || ""))) {
      segment.push(t);
    }
  });
  close();
}

function blocks(tokens, root, ctx) {
  const stack = [root];
  const top = () => stack[stack.length - 1];
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i];
    if (t.type === "paragraph_open" && FOOTNOTE_DEF.test(tokens[i + 1]?.content || "")) {
      footnotes(tokens[i + 1].children || [], top(), ctx);
      i += 2; // inline, paragraph_close
    } else if (t.nesting === 1) {
      const level = /^h([1-6])$/.exec(t.tag);
      const tag = level ? `h${Math.min(6, Number(level[1]) + ctx.headingShift)}` : t.tag;
      const el = h(BLOCK_TAGS.has(t.tag) ? tag : "div", { start: t.attrGet("start") });
      stack.push(top().appendChild(t.tag === "table" ? h("div", { class: "table-wrap" }, el) : el));
      if (t.tag === "table") stack[stack.length - 1] = el;
    } else if (t.nesting === -1) {
      if (stack.length > 1) stack.pop();
    } else if (t.type === "inline") {
      inline(t.children || [], top(), ctx);
    } else if (t.type === "fence" || t.type === "code_block") {
      top().append(h("pre", {}, h("code", {}, t.content.replace(/\n$/, ""))));
    } else if (t.type === "hr") {
      top().append(h("hr"));
    } else if (t.content) {
      top().append(h("p", {}, t.content));
    }
  }
}

/**
 * Render Markdown into a new <div class="md">. Options: onCite(chunkId) for citation buttons,
 * headingShift to demote headings.
 */
export function renderMarkdown(src, { onCite = null, headingShift = 0 } = {}) {
  const root = h("div", { class: "md" });
  const ctx = { onCite, headingShift, footnoteRefs: [], root };
  blocks(md.parse(String(src || ""), {}), root, ctx);
  return root;
}

/** One line of Markdown (code spans, emphasis, links) as inline DOM, in a <span>: a rationale
 *  cell shows `+3.0` as code, as the report does, never raw backticks. */
export function renderInlineMarkdown(src) {
  const root = h("span", { class: "md-inline" });
  const ctx = { onCite: null, headingShift: 0, footnoteRefs: [], root };
  inline(md.parseInline(String(src || ""), {})[0]?.children || [], root, ctx);
  return root;
}
