"use strict";
// The gateway page: five views over the JSON endpoints under /ui/api/.
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const $ = (selector) => document.querySelector(selector);

async function api(path) {
  const response = await fetch(`api/${path}`, { headers });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function show(view) {
  document.querySelectorAll("nav button").forEach((b) => b.classList.toggle("active", b.dataset.view === view));
  document.querySelectorAll(".view").forEach((v) => v.classList.toggle("active", v.id === view));
  if (view === "budget") loadBudget();
  if (view === "learned") loadLearned();
}

// "1 tool", "2 tools".
const count = (n, noun) => `${n.toLocaleString()} ${noun}${n === 1 ? "" : "s"}`;

let tools = [];
let style = "bridge";
async function loadCatalog() {
  const data = await api("catalog");
  tools = data.tools;
  style = data.style;
  $("#summary").textContent =
    `${count(data.servers.length, "server")} · ${count(tools.length, "tool")} · tool_search: ${data.search_mode}`;
  $("#servers").replaceChildren(...data.servers.map((s) => element("div", { class: "card", "data-server": s.name },
    element("b", {}, s.name), element("span", { class: `state-${s.state}` }, s.state),
    ` · ${count(s.tools, "tool")} · ${count(s.tokens, "token")}`)));
  renderTools();
}

function renderTools() {
  const filter = $("#filter").value.toLowerCase();
  const rows = tools.filter((t) => !filter || `${t.name} ${t.server ?? ""} ${t.description}`.toLowerCase().includes(filter))
    .map((t) => element("tr", { "data-tool": t.name },
      element("td", { class: "name", title: JSON.stringify(t.parameters, null, 2) }, t.name),
      element("td", {}, t.server ?? ""),
      element("td", {}, element("span", { class: `policy policy-${t.policy}` }, t.policy)),
      element("td", {}, t.description)));
  $("#tools tbody").replaceChildren(...rows);
}

async function search(event) {
  event.preventDefault();
  const query = $("#query").value;
  const data = await api(`search?q=${encodeURIComponent(query)}`);
  $("#engine").textContent = `tool_search uses the ${data.tool_search_mode} engine`;
  $("#results").replaceChildren(...Object.entries(data.results).map(([mode, result]) => element("div",
    { class: "column", "data-mode": mode },
    element("h3", {}, `${mode}${result.mode !== mode ? ` (ran as ${result.mode})` : ""}`),
    result.hits.length ? element("ol", {}, ...result.hits.map((hit) => element("li", { "data-hit": hit.name },
      element("span", { class: "name" }, hit.name), ` ${hit.score}`,
      element("div", { class: "fields" }, Object.entries(hit.matched).map(([f, terms]) => `${f}: ${terms.join(", ")}`)
        .join(" · ") || "no literal term matched")))) : element("p", { class: "muted" }, "no tool matched"))));
}

let lastEvent = 0;
async function pollActivity() {
  try {
    const data = await api(`activity?after=${lastEvent}`);
    const body = $("#events tbody");
    for (const e of data.events) {
      lastEvent = Math.max(lastEvent, e.time);
      const learned = e.learned?.length ? ` (learned: ${e.learned.join(", ")})` : "";
      const what = e.kind === "search" ? `“${e.query}” → ${e.hits.slice(0, 5).join(", ") || "nothing"}${learned}` : e.tool;
      // Reveal style adds what a search finds to the tool list; the bridge style only finds it (described, then called).
      const verb = { search: style === "reveal" ? "revealed" : "found", describe: "described" }[e.kind];
      const result = e.ok ? (verb && e.revealed.length ? `ok, ${verb} ${e.revealed.join(", ")}` : "ok") : e.code;
      body.prepend(element("tr", { class: e.zero_result ? "zero" : "", "data-kind": e.kind },
        element("td", {}, new Date(e.time * 1000).toLocaleTimeString()), element("td", {}, e.label ?? e.session),
        element("td", {}, e.kind), element("td", { class: "name" }, what), element("td", {}, result),
        element("td", {}, e.latency_ms.toFixed(1))));
    }
  } finally {
    setTimeout(pollActivity, 2000);
  }
}

function bars(container, rows, scale = 0) {
  const max = Math.max(1, scale, ...rows.map((r) => r.tokens));
  container.replaceChildren(...rows.map((r) => element("div", { class: "bar", "data-label": r.label },
    element("span", { class: "label", title: r.label }, r.label),
    element("span", { class: "fill", style: `width:${Math.round((r.tokens / max) * 60)}%` }),
    element("span", { class: "value" }, r.tokens.toLocaleString()))));
}

async function loadBudget() {
  const data = await api("budget");
  bars($("#budget-styles"), [{ label: "every schema in full", tokens: data.full_tokens },
    ...data.styles.map((s) => ({ label: s.style, tokens: s.tokens }))]);
  bars($("#budget-servers"), data.servers.map((s) => ({ label: `${s.name} (${s.tools})`, tokens: s.tokens })));
  // On the scale of the full catalog, so the saving shows.
  bars($("#budget-providers"), data.providers.map((p) => ({ label: `${p.provider} · ${p.style}`, tokens: p.tokens })),
    data.full_tokens);
}

// The requests each tool was learned from, in the caller's own learning scope.
async function loadLearned() {
  const data = await api("learning");
  $("#learning-state").textContent = data.enabled
    ? `Learning is on (${data.store} store); your learning scope: ${data.scope}.${data.error ? ` ${data.error}.` : ""}`
    : "Learning is off (toolscout.learning.enabled).";
  $("#learning-scopes").textContent = data.scopes.map((s) => `${s.scope}: ${count(s.pairs, "pair")}`).join(" · ");
  const when = (t) => new Date(t * 1000).toLocaleString();
  $("#learned-tools tbody").replaceChildren(...data.tools.map((t) => element("tr", { "data-tool": t.name },
    element("td", { class: "name" }, t.name), element("td", {}, t.pairs),
    element("td", {}, element("ul", {}, ...t.requests.map((r) => element("li", { class: r.missed ? "missed" : "" },
      `“${r.request}” · ${count(r.sessions, "session")} · ${when(r.last)}`)),
      ...(t.more_requests ? [element("li", { class: "muted" }, `and ${t.more_requests} more`)] : []))))));
}

document.querySelectorAll("nav button").forEach((b) => b.addEventListener("click", () => show(b.dataset.view)));
$("#filter").addEventListener("input", renderTools);
$("#search-form").addEventListener("submit", search);
loadCatalog();
pollActivity();
