// bidlab serve: what both pages share (fetching, NDJSON streams, errors next to fields).
"use strict";

const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SUIT_RED = { S: false, H: true, D: true, C: false };
const TRUMP_WORD = { S: "\u2660 spades", H: "\u2665 hearts", D: "\u2666 diamonds",
                     C: "\u2663 clubs", NT: "no trump" };

function $(id) { return document.getElementById(id); }

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function fmt(x, digits) {
  if (x === null || x === undefined || Number.isNaN(x)) return "\u2013";
  return Number(x).toFixed(digits === undefined ? 3 : digits);
}

function signed(x, digits) {
  if (x === null || x === undefined) return "\u2013";
  return (x >= 0 ? "+" : "") + Number(x).toFixed(digits === undefined ? 2 : digits);
}

function clearErrors(form) {
  form.querySelectorAll(".err").forEach((e) => { e.textContent = ""; });
  form.querySelectorAll(".bad").forEach((e) => e.classList.remove("bad"));
  const general = $("error");
  if (general) general.textContent = "";
}

// one sentence next to its field (or in the general slot when it has none)
function showError(form, message, field) {
  const slot = field ? form.querySelector(`.err[data-for="${field}"]`) : null;
  const target = slot || $("error");
  target.textContent = message;
  const input = field ? form.querySelector(`[name="${field}"]`) : null;
  if (input && slot) input.classList.add("bad");
}

async function getJSON(url) {
  const r = await fetch(url);
  const body = await r.json();
  if (!r.ok) throw Object.assign(new Error(body.error || r.statusText), { field: body.field });
  return body;
}

// Read an NDJSON answer: onLine(obj) for every line; returns the last line. A 4xx answer
// (plain JSON) throws an Error with the sentence and its field.
async function readStream(response, onLine) {
  if (!response.ok) {
    let body = {};
    try { body = await response.json(); } catch (e) { body = { error: response.statusText }; }
    throw Object.assign(new Error(body.error || "the server refused the query"),
                        { field: body.field, status: response.status });
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let last = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, cut).trim();
      buffer = buffer.slice(cut + 1);
      if (!line) continue;
      last = JSON.parse(line);
      if (last.error) {
        throw Object.assign(new Error(last.error), { field: last.field, status: last.status });
      }
      onLine(last);
    }
    if (done) break;
  }
  return last;
}

function setProgress(fraction, note) {
  $("bar").style.width = `${Math.round(100 * Math.max(0, Math.min(1, fraction)))}%`;
  $("status").textContent = note || "";
}

// game selector: shipped games and uploads, an upload input beside it
async function fillGames(select, chosen) {
  const games = await getJSON("/api/games");
  select.textContent = "";
  for (const g of games) {
    const text = g.game.startsWith("upload:") ? `${g.title} (uploaded ${g.game.slice(7)})` : g.title;
    select.append(el("option", { value: g.game }, text));
  }
  if (chosen && [...select.options].some((o) => o.value === chosen)) select.value = chosen;
  return games;
}

async function uploadVariant(file) {
  if (file.size > 64 * 1024) {
    throw Object.assign(new Error(`variant file: ${file.size.toLocaleString()} bytes is too large; allowed: at most 65,536 bytes`), { field: "file" });
  }
  const r = await fetch(`/api/variants?filename=${encodeURIComponent(file.name)}`,
                        { method: "POST", body: await file.arrayBuffer(),
                          headers: { "Content-Type": "application/toml" } });
  const body = await r.json();
  if (!r.ok) throw Object.assign(new Error(body.error), { field: body.field || "file" });
  return body;
}

// the options of a configuration as inputs named set:<option>
function optionInputs(box, info, values) {
  box.textContent = "";
  for (const o of info.options) {
    const id = `opt-${o.name}`;
    let input;
    if (o.values.length) {
      input = el("select", { id, name: `set:${o.name}`, title: o.help },
                 o.values.map((v) => el("option", { value: v }, v)));
    } else {
      input = el("input", { id, name: `set:${o.name}`, type: "number", min: o.min, max: o.max,
                            title: o.help });
    }
    input.value = values && values[o.name] !== undefined ? values[o.name] : o.value;
    box.append(el("div", {}, el("label", { for: id, title: o.help }, o.name), input));
  }
}

function optionSets(box, info) {
  // only options that differ from the default go into the query
  const out = [];
  for (const o of info.options) {
    const input = box.querySelector(`[name="set:${o.name}"]`);
    if (input && String(input.value) !== String(o.default)) out.push(`${o.name}=${input.value}`);
  }
  return out;
}
