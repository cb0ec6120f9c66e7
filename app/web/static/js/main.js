// Hash routes: #/new, #/runs/ID, #/history, #/companies, #/companies/ID, #/compare/A/B. The API key prompt lives here.

import { apiKey, onKeyNeeded, setApiKey } from "./api.js";
import { clear, h } from "./dom.js";
import { companiesView, companyView } from "./companies.js";
import { compareView } from "./compare.js";
import { historyView } from "./history.js";
import { newRunView } from "./newrun.js";
import { runView } from "./run.js";

const main = document.getElementById("main");
let cleanups = [];

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function keyDialog(message) {
  return new Promise((resolve) => {
    const dialog = document.getElementById("key-dialog");
    const form = dialog.querySelector("form");
    const input = dialog.querySelector("input");
    dialog.querySelector(".why").textContent = message;
    input.value = "";
    const done = (ok) => {
      form.onsubmit = null;
      dialog.querySelector(".cancel").onclick = null;
      dialog.close();
      resolve(ok);
    };
    form.onsubmit = (e) => {
      e.preventDefault();
      if (!input.value.trim()) return;
      setApiKey(input.value.trim());
      updateKeyButton();
      done(true);
    };
    dialog.querySelector(".cancel").onclick = () => done(false);
    dialog.showModal();
    input.focus();
  });
}

function updateKeyButton() {
  const btn = document.getElementById("key-button");
  btn.textContent = apiKey() ? "API key: set" : "API key";
  btn.title = apiKey() ? "Kept for this browser tab only. Click to forget it." : "Set an API key for this tab";
}

async function route() {
  for (const fn of cleanups) fn();
  cleanups = [];
  document.getElementById("drawer").hidden = true;
  const hash = location.hash || "#/new";
  const [path, qs] = hash.slice(1).split("?");
  const parts = path.split("/").filter(Boolean);
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", a.getAttribute("href") === `#/${parts[0] || "new"}`));
  clear(main).append(h("p", { class: "muted" }, "Loading…"));
  try {
    if (parts[0] === "runs" && parts[1]) {
      await runView(main, parts[1], { navigate, addCleanup: (fn) => cleanups.push(fn) });
    } else if (parts[0] === "history") {
      await historyView(main, navigate, new URLSearchParams(qs || ""));
    } else if (parts[0] === "companies" && parts[1]) {
      await companyView(main, decodeURIComponent(parts[1]));
    } else if (parts[0] === "companies") {
      await companiesView(main);
    } else if (parts[0] === "compare" && parts[1] && parts[2]) {
      await compareView(main, parts[1], parts[2]);
    } else {
      await newRunView(main, navigate);
    }
  } catch (err) {
    clear(main).append(h("div", { class: "card" }, h("h2", {}, "Something went wrong"), h("p", { class: "error" }, err.message || String(err))));
  }
}

onKeyNeeded(keyDialog);
document.getElementById("key-button").addEventListener("click", () => {
  if (apiKey()) {
    setApiKey("");
    updateKeyButton();
  } else keyDialog("Enter the key your administrator gave you.").then((ok) => ok && route());
});
updateKeyButton();
window.addEventListener("hashchange", route);
route();
