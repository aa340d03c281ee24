// fenlens page: check a FEN, read a picture, correct the board. Talks only to this server.
"use strict";

const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const FILES = "abcdefgh";
const NAMES = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };
const PALETTE = ["K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p", ""];

const $ = (id) => document.getElementById(id);
const state = {
  board: new Array(64).fill(""), // FEN order: a8..h8, a7..h7, ..., a1..h1
  side: "w", castling: "KQkq", ep: "-", halfmove: "0", fullmove: "1",
  flipped: false, selected: null, focus: 0,
  uncertain: new Set(), brokenRanks: new Set(), marked: new Set(),
  picture: null, recognition: null, checkSeq: 0,
  // Every board read in the picture (one unless "every board" is ticked), the one shown, and
  // the picture itself, to read again when the box is ticked.
  boards: [], boardIndex: 0, blob: null, readSeq: 0,
  // Per board read, the FEN, uncertain squares and flip as the user left them when choosing
  // another board, so that going back shows the corrections.
  edits: [],
};

const squareName = (i) => FILES[i % 8] + (8 - Math.floor(i / 8));
const squareIndex = (name) => (8 - Number(name[1])) * 8 + FILES.indexOf(name[0]);
const pieceFile = (p) => (p === p.toUpperCase() ? "w" : "b") + p.toUpperCase() + ".svg";
const describe = (p) => (p ? (p === p.toUpperCase() ? "white " : "black ") + NAMES[p.toLowerCase()] : "empty");

function parsePlacement(text) {
  const board = new Array(64).fill("");
  const ranks = (text || "").split("/");
  for (let r = 0; r < 8 && r < ranks.length; r++) {
    let c = 0;
    for (const ch of ranks[r]) {
      if (c >= 8) break;
      if (/[1-8]/.test(ch)) c += Number(ch);
      else if (/[pnbrqkPNBRQK]/.test(ch)) board[r * 8 + c++] = ch;
    }
  }
  return board;
}

function placement(board) {
  const ranks = [];
  for (let r = 0; r < 8; r++) {
    let text = "", run = 0;
    for (let c = 0; c < 8; c++) {
      const p = board[r * 8 + c];
      if (p) { if (run) text += run; run = 0; text += p; } else run++;
    }
    if (run) text += run;
    ranks.push(text);
  }
  return ranks.join("/");
}

// Castling rights whose king and rook stand on their home squares.
function possibleCastling(board) {
  const ok = new Set();
  if (board[60] === "K" && board[63] === "R") ok.add("K");
  if (board[60] === "K" && board[56] === "R") ok.add("Q");
  if (board[4] === "k" && board[7] === "r") ok.add("k");
  if (board[4] === "k" && board[0] === "r") ok.add("q");
  return ok;
}

// En passant squares a pawn could just have skipped, for the side to move.
function possibleEp(board, side) {
  const out = [];
  for (let c = 0; c < 8; c++) {
    if (side === "w" && board[3 * 8 + c] === "p" && !board[2 * 8 + c] && !board[8 + c]) out.push(FILES[c] + "6");
    if (side === "b" && board[4 * 8 + c] === "P" && !board[5 * 8 + c] && !board[6 * 8 + c]) out.push(FILES[c] + "3");
  }
  return out;
}

function composeFen() {
  const possible = possibleCastling(state.board);
  let castling = [..."KQkq"].filter((l) => state.castling.includes(l) && possible.has(l)).join("");
  if (!castling) castling = "-";
  const ep = possibleEp(state.board, state.side).includes(state.ep) ? state.ep : "-";
  return [placement(state.board), state.side, castling, ep, state.halfmove, state.fullmove].join(" ");
}

// ---- drawing ----

function drawBoard() {
  const el = $("board");
  // Rebuilding the squares drops the focused one, and the palette, hidden or rebuilt below,
  // drops its button: where a square or a palette button had the keyboard's focus, the square
  // in focus gets it back, so arrows and piece letters go on working after a pick by mouse too.
  const hadFocus = el.contains(document.activeElement) || $("palette").contains(document.activeElement);
  el.replaceChildren();
  for (let cell = 0; cell < 64; cell++) {
    const i = state.flipped ? 63 - cell : cell;
    const piece = state.board[i];
    const row = Math.floor(i / 8), col = i % 8;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sq " + ((row + col) % 2 === 0 ? "light" : "dark");
    button.dataset.square = squareName(i);
    button.dataset.piece = piece || "";
    button.setAttribute("aria-label", squareName(i) + " " + describe(piece));
    button.tabIndex = i === state.focus ? 0 : -1;
    if (piece) button.style.backgroundImage = `url(/pieces/${pieceFile(piece)})`;
    if (state.selected === i) button.classList.add("selected");
    if (state.brokenRanks.has(8 - row)) button.classList.add("broken");
    if (state.marked.has(squareName(i))) button.classList.add("marked");
    if (state.uncertain.has(squareName(i))) button.classList.add("uncertain");
    button.addEventListener("click", () => select(i));
    el.appendChild(button);
  }
  if (hadFocus) focusCell(state.focus);
  drawPalette();
}

function drawPalette() {
  const el = $("palette");
  el.hidden = state.selected === null;
  if (el.hidden) return;
  el.replaceChildren();
  for (const p of PALETTE) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.piece = p;
    button.title = describe(p) + (p ? ` (${p})` : " (Delete)");
    button.setAttribute("aria-label", "put " + describe(p) + " on " + squareName(state.selected));
    if (p) button.style.backgroundImage = `url(/pieces/${pieceFile(p)})`;
    else { button.textContent = "empty"; button.classList.add("empty"); }
    button.addEventListener("click", () => place(p));
    el.appendChild(button);
  }
}

function drawFields() {
  for (const radio of document.querySelectorAll("input[name=side]")) radio.checked = radio.value === state.side;
  const possible = possibleCastling(state.board);
  for (const letter of "KQkq") {
    const box = $("castle-" + letter);
    box.disabled = !possible.has(letter);
    box.checked = possible.has(letter) && state.castling.includes(letter);
  }
  const select = $("ep");
  const options = possibleEp(state.board, state.side);
  select.replaceChildren();
  for (const value of ["-", ...options]) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = value === "-" ? "none" : value;
    select.appendChild(option);
  }
  select.value = options.includes(state.ep) ? state.ep : "-";
}

function drawDiagnostics(report) {
  const list = $("diagnostics");
  list.replaceChildren();
  const items = report.diagnostics || [];
  if (!items.length) {
    const li = document.createElement("li");
    li.className = "ok";
    li.textContent = "No problems: this position is legal.";
    list.appendChild(li);
  }
  for (const d of items) {
    const li = document.createElement("li");
    li.dataset.code = d.code;
    const label = document.createElement("span");
    label.className = d.severity;
    label.textContent = d.severity === "error" ? "Error: " : d.severity === "warning" ? "Warning: " : "Note: ";
    li.append(label, document.createTextNode(d.message));
    if (d.fix) li.appendChild(fixButton("fix", "Apply fix", d.fix));
    list.appendChild(li);
  }
  if (report.fixed && items.filter((d) => d.severity === "error").length > 1) {
    const li = document.createElement("li");
    li.appendChild(fixButton("fix-all", "Apply all fixes", report.fixed));
    list.appendChild(li);
  }
}

// A button that replaces the FEN with a corrected one (shown as its tooltip).
function fixButton(className, label, fen) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  button.textContent = label;
  button.title = fen;
  button.addEventListener("click", () => setFen(fen));
  return button;
}

// The projective map from the unit square to the picture's board corners (TL, TR, BR, BL).
function unitToQuad(c) {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = c;
  const dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2;
  const sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3;
  let g = 0, h = 0;
  const den = dx1 * dy2 - dx2 * dy1;
  if ((sx || sy) && den) { g = (sx * dy2 - dx2 * sy) / den; h = (dx1 * sy - sx * dy1) / den; }
  const a = x1 - x0 + g * x1, b = x3 - x0 + h * x3, d = y1 - y0 + g * y1, e = y3 - y0 + h * y3;
  return (u, v) => { const w = g * u + h * v + 1; return [(a * u + b * v + x0) / w, (d * u + e * v + y0) / w]; };
}

function drawPicture() {
  const image = state.picture;
  if (!image) return;
  const canvas = $("picture-canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(image, 0, 0);
  const r = state.recognition;
  if (!r) return;
  const map = unitToQuad(r.board.corners);
  const width = Math.max(1.5, Math.max(image.width, image.height) / 400);
  // With several boards, the others' grids faintly, and every board's number by its corner.
  if (state.boards.length > 1) {
    state.boards.forEach((other, index) => {
      if (index !== state.boardIndex) {
        const otherMap = unitToQuad(other.board.corners);
        ctx.strokeStyle = "rgba(120, 120, 120, 0.8)";
        ctx.lineWidth = width;
        ctx.beginPath();
        for (const [u0, v0, u1, v1] of [[0, 0, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 0, 0]]) {
          let [x, y] = otherMap(u0, v0); ctx.moveTo(x, y); [x, y] = otherMap(u1, v1); ctx.lineTo(x, y);
        }
        ctx.stroke();
      }
      const [x, y] = other.board.corners[0];
      const size = Math.max(14, Math.max(image.width, image.height) / 40);
      ctx.font = `bold ${size}px system-ui, sans-serif`;
      const label = String(index + 1);
      const w = ctx.measureText(label).width + size * 0.5;
      const left = Math.max(0, x - w), top = Math.max(0, y - size * 1.3);
      ctx.fillStyle = index === state.boardIndex ? "rgba(0, 150, 200, 0.95)" : "rgba(90, 90, 90, 0.9)";
      ctx.fillRect(left, top, w, size * 1.3);
      ctx.fillStyle = "#fff";
      ctx.fillText(label, left + size * 0.25, top + size);
    });
  }
  for (const name of state.uncertain) {
    const file = FILES.indexOf(name[0]), rank = Number(name[1]) - 1;
    const col = r.flipped ? 7 - file : file, row = r.flipped ? rank : 7 - rank;
    const corners = [[col, row], [col + 1, row], [col + 1, row + 1], [col, row + 1]].map(([u, v]) => map(u / 8, v / 8));
    ctx.beginPath();
    corners.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
    ctx.fillStyle = "rgba(229, 57, 53, 0.35)";
    ctx.fill();
    ctx.strokeStyle = "#e53935";
    ctx.lineWidth = width * 1.5;
    ctx.stroke();
  }
  ctx.strokeStyle = "rgba(0, 200, 255, 0.9)";
  ctx.lineWidth = width;
  ctx.beginPath();
  for (let k = 0; k <= 8; k++) {
    let [x, y] = map(k / 8, 0); ctx.moveTo(x, y); [x, y] = map(k / 8, 1); ctx.lineTo(x, y);
    [x, y] = map(0, k / 8); ctx.moveTo(x, y); [x, y] = map(1, k / 8); ctx.lineTo(x, y);
  }
  ctx.stroke();
}

// ---- checking ----

function setStatus(text) { $("status").textContent = text; }

function fieldsFromText(text) {
  const parts = text.trim().split(/\s+/);
  return { side: parts[1], castling: parts[2], ep: parts[3], halfmove: parts[4], fullmove: parts[5] };
}

async function check(text) {
  const seq = ++state.checkSeq;
  let report;
  try {
    const response = await fetch("/api/check", { method: "POST", headers: { "Content-Type": "text/plain" }, body: text });
    report = await response.json();
    if (!response.ok) throw new Error(report.message || response.statusText);
  } catch (error) {
    setStatus("Could not check the FEN: " + error.message);
    return;
  }
  if (seq !== state.checkSeq) return; // a newer check is on its way
  state.board = parsePlacement(report.board);
  const fields = fieldsFromText(report.fen || text);
  state.side = fields.side === "b" || fields.side === "B" ? "b" : "w";
  state.castling = fields.castling && fields.castling !== "-" ? fields.castling : "";
  state.ep = fields.ep || "-";
  state.halfmove = /^\d+$/.test(fields.halfmove || "") ? fields.halfmove : "0";
  state.fullmove = /^\d+$/.test(fields.fullmove || "") && fields.fullmove !== "0" ? fields.fullmove : "1";
  state.brokenRanks = new Set();
  state.marked = new Set();
  for (const d of report.diagnostics || []) {
    if (d.rank && d.severity === "error") state.brokenRanks.add(d.rank);
    if (d.square) state.marked.add(d.square);
  }
  $("fen").classList.toggle("invalid", !report.valid);
  $("fen").setAttribute("aria-invalid", String(!report.valid));
  const fen = report.fen || text;
  $("lichess").href = "https://lichess.org/analysis/standard/" + encodeURI(fen.trim().replace(/\s+/g, "_"));
  drawBoard();
  drawFields();
  drawDiagnostics(report);
}

let debounce = null;
function onFenTyped() {
  clearTimeout(debounce);
  debounce = setTimeout(() => check($("fen").value), 120);
}

function setFen(fen) {
  $("fen").value = fen;
  check(fen);
}

function commit() {
  setFen(composeFen());
}

// ---- correcting ----

function select(i) {
  state.selected = state.selected === i ? null : i;
  state.focus = i;
  drawBoard();
  focusCell(i);
}

function place(piece) {
  if (state.selected === null) return;
  const i = state.selected;
  state.board[i] = piece;
  state.uncertain.delete(squareName(i));
  state.selected = null;
  state.focus = i;
  // Shown at once; the server's check of the new FEN then marks what it finds.
  drawBoard();
  commit();
  drawPicture();
  setStatus(`${squareName(i)}: ${describe(piece)}`);
}

function focusCell(i) {
  const button = $("board").querySelector(`[data-square="${squareName(i)}"]`);
  if (button) button.focus();
}

function onBoardKey(event) {
  const i = state.focus;
  let row = Math.floor(i / 8), col = i % 8;
  const step = state.flipped ? -1 : 1;
  const moves = { ArrowUp: [-step, 0], ArrowDown: [step, 0], ArrowLeft: [0, -step], ArrowRight: [0, step] };
  if (moves[event.key]) {
    row = Math.min(7, Math.max(0, row + moves[event.key][0]));
    col = Math.min(7, Math.max(0, col + moves[event.key][1]));
    state.focus = row * 8 + col;
    drawBoard();
    focusCell(state.focus);
    event.preventDefault();
  } else if (/^[pnbrqkPNBRQK]$/.test(event.key)) {
    state.selected = i;
    place(event.key);
    focusCell(i);
    event.preventDefault();
  } else if (["Delete", "Backspace", ".", "x"].includes(event.key)) {
    state.selected = i;
    place("");
    focusCell(i);
    event.preventDefault();
  } else if (event.key === "Escape") {
    state.selected = null;
    drawBoard();
    focusCell(i);
  }
}

// ---- pictures ----

async function readPicture(blob) {
  if (!blob || !blob.type.startsWith("image/")) {
    setStatus("That is not a picture.");
    return;
  }
  const seq = ++state.readSeq;
  $("picture-figure").hidden = false;
  $("progress").hidden = false;
  $("picture-caption").textContent = "Picture";
  setStatus("Reading the picture…");
  let picture = null; // stays null for a picture the browser cannot decode; the server says why
  try {
    picture = await createImageBitmap(blob);
  } catch {}
  if (seq !== state.readSeq) return; // a newer picture is on its way: keep its bitmap
  state.picture = picture;
  state.blob = blob;
  state.recognition = null;
  state.boards = [];
  state.edits = [];
  state.uncertain = new Set();
  showBoardChoice();
  drawPicture();
  const every = $("all-boards").checked;
  try {
    const url = every ? "/api/recognize?all_boards=true" : "/api/recognize";
    const response = await fetch(url, { method: "POST", headers: { "Content-Type": blob.type }, body: blob });
    const result = await response.json();
    if (seq !== state.readSeq) return; // a newer reading is on its way
    if (!response.ok) throw new Error(result.message || response.statusText);
    state.boards = every ? result.boards : [result];
    chooseBoard(0);
  } catch (error) {
    if (seq !== state.readSeq) return;
    setStatus("Could not read the picture: " + error.message);
    $("picture-caption").textContent = "Picture: " + error.message;
  } finally {
    if (seq === state.readSeq) $("progress").hidden = true;
  }
}

// Shows board `index` of those read in the picture: its grid, its uncertain squares, its FEN.
function chooseBoard(index) {
  const result = state.boards[index];
  if (!result) return;
  if (state.recognition && state.boardIndex !== index) {
    // Keep the board left as the user left it, where it differs from its reading (a square
    // corrected, a FEN typed in).
    const left = $("fen").value;
    if (left !== state.recognition.fen) {
      state.edits[state.boardIndex] = {
        fen: left, uncertain: new Set(state.uncertain), flipped: state.flipped,
      };
    } else {
      delete state.edits[state.boardIndex];
    }
  }
  const edited = state.edits[index];
  state.boardIndex = index;
  state.recognition = result;
  state.uncertain = new Set(edited ? edited.uncertain : result.uncertain);
  state.flipped = edited ? edited.flipped : result.flipped;
  drawPicture();
  showBoardChoice();
  if (edited) {
    $("picture-caption").textContent = `Picture: board ${index + 1} of ${state.boards.length}, as you left it.`;
    setStatus(`Back to board ${index + 1} of ${state.boards.length}, with your corrections.`);
    setFen(edited.fen);
    return;
  }
  const unsure = result.uncertain.length;
  const which = state.boards.length > 1
    ? `board ${index + 1} of ${state.boards.length} (click another grid or number to read it); `
    : "";
  $("picture-caption").textContent = "Picture: " + which + (unsure
    ? `${unsure} uncertain square${unsure > 1 ? "s" : ""} marked; check them on the board.`
    : "the detected grid.");
  const read = state.boards.length > 1 ? `Read board ${index + 1} of ${state.boards.length}` : "Read the position";
  setStatus(unsure ? `${read}; please check ${result.uncertain.join(", ")}.` : `${read}.`);
  setFen(result.fen);
}

// One button per board read, when there are several.
function showBoardChoice() {
  const choice = $("board-choice");
  choice.replaceChildren();
  choice.hidden = state.boards.length < 2;
  $("picture-canvas").style.cursor = state.boards.length > 1 ? "pointer" : "";
  state.boards.forEach((_, index) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = String(index + 1);
    button.title = `Board ${index + 1}`;
    button.dataset.board = String(index);
    button.setAttribute("aria-pressed", String(index === state.boardIndex));
    button.addEventListener("click", () => chooseBoard(index));
    choice.append(button);
  });
}

// Whether the point lies inside the convex quad (corners in order around it).
function insideQuad(corners, [x, y]) {
  const sides = corners.map(([x0, y0], k) => {
    const [x1, y1] = corners[(k + 1) % 4];
    return (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0);
  });
  return sides.every((s) => s >= 0) || sides.every((s) => s <= 0);
}

// A click on the picture chooses the board whose grid holds it.
function onPictureClick(event) {
  const canvas = $("picture-canvas");
  const rect = canvas.getBoundingClientRect();
  const point = [
    (event.clientX - rect.left) * canvas.width / rect.width,
    (event.clientY - rect.top) * canvas.height / rect.height,
  ];
  const index = state.boards.findIndex((board) => insideQuad(board.board.corners, point));
  if (index >= 0 && index !== state.boardIndex) chooseBoard(index);
}

function pictureFrom(items) {
  for (const item of items || []) {
    if (item.kind === "file" && item.type.startsWith("image/")) return item.getAsFile();
  }
  return null;
}

// ---- copying ----

async function copyFen() {
  const fen = $("fen").value.trim();
  try {
    await navigator.clipboard.writeText(fen);
  } catch {
    const area = $("clipboard");
    area.value = fen;
    area.select();
    document.execCommand("copy");
  }
  setStatus("Copied: " + fen);
}

// ---- wiring ----

function init() {
  $("fen").addEventListener("input", onFenTyped);
  $("copy").addEventListener("click", copyFen);
  $("flip").addEventListener("click", () => { state.flipped = !state.flipped; drawBoard(); });
  $("clear").addEventListener("click", () => { state.board.fill(""); state.uncertain.clear(); commit(); });
  $("start").addEventListener("click", () => { state.uncertain.clear(); setFen(START); });
  $("board").addEventListener("keydown", onBoardKey);
  $("picture").addEventListener("change", (e) => readPicture(e.target.files[0]));
  $("all-boards").addEventListener("change", () => { if (state.blob) readPicture(state.blob); });
  $("picture-canvas").addEventListener("click", onPictureClick);
  for (const radio of document.querySelectorAll("input[name=side]")) {
    radio.addEventListener("change", () => { state.side = radio.value; commit(); });
  }
  for (const letter of "KQkq") {
    $("castle-" + letter).addEventListener("change", () => {
      const set = new Set(state.castling);
      if ($("castle-" + letter).checked) set.add(letter); else set.delete(letter);
      state.castling = [..."KQkq"].filter((l) => set.has(l)).join("");
      commit();
    });
  }
  $("ep").addEventListener("change", () => { state.ep = $("ep").value; commit(); });
  document.addEventListener("keydown", (e) => {
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement?.tagName);
    if (e.key === "f" && !typing && !e.ctrlKey && !e.metaKey && !$("board").contains(document.activeElement)) {
      state.flipped = !state.flipped;
      drawBoard();
    }
  });
  document.addEventListener("paste", (e) => {
    const picture = pictureFrom(e.clipboardData?.items);
    if (picture) { e.preventDefault(); readPicture(picture); return; }
    if (e.target !== $("fen")) {
      const text = e.clipboardData?.getData("text/plain");
      if (text) { e.preventDefault(); setFen(text.trim()); }
    }
  });
  document.addEventListener("dragover", (e) => { e.preventDefault(); $("drop-hint").hidden = false; });
  document.addEventListener("dragleave", (e) => { if (!e.relatedTarget) $("drop-hint").hidden = true; });
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    $("drop-hint").hidden = true;
    const picture = e.dataTransfer?.files?.[0] || pictureFrom(e.dataTransfer?.items);
    if (picture) readPicture(picture);
    else {
      const text = e.dataTransfer?.getData("text/plain");
      if (text) setFen(text.trim());
    }
  });
  const fromLink = new URLSearchParams(location.search).get("fen");
  if (fromLink) $("fen").value = fromLink;
  check($("fen").value);
}

init();
