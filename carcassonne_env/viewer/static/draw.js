"use strict";
// Drawing shared by the replay page (page.js) and the play page (play.js): tiles, towers,
// followers and player cards, from the data of carcassonne_env/viewer/snapshots.py
// (data: size, players, floor_colours, watchtowers; a frame: followers, towers, players).
function carcassonneDrawer(data) {
  const NS = "http://www.w3.org/2000/svg";
  const S = data.size, FLOORS = data.floor_colours, FLOOR_NAMES = ["normal", "black", "white"];
  const MEEPLE = 20, TOP_MEEPLE = 17;  // a follower's size on a segment, on top of a tower
  const $ = (id) => document.getElementById(id);
  const layers = { tiles: $("tiles"), marks: $("marks"), towers: $("towers"), followers: $("followers") };

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }
  function meeple(x, y, seat, size, parent, lying) {
    const m = el("use", { href: "#meeple", x: x - size / 2, y: y - size / 2, width: size, height: size,
      fill: data.players[seat].colour, class: "follower", "data-seat": seat }, parent);
    if (lying) m.setAttribute("transform", `rotate(90 ${x} ${y})`);
    return m;
  }

  // The box [x, y, width, height] (board SVG units) that shows the tile positions [x, y, ...] in
  // spots with a tile's margin, at least 9 × 7 tiles.
  function fitBox(spots) {
    const xs = spots.map((t) => t[0]), ys = spots.map((t) => t[1]);
    const w = Math.max(9, Math.max(...xs) - Math.min(...xs) + 3) * S;
    const h = Math.max(7, Math.max(...ys) - Math.min(...ys) + 3) * S;
    const cx = (Math.min(...xs) + Math.max(...xs) + 1) * S / 2, cy = (1 - Math.min(...ys) - Math.max(...ys)) * S / 2;
    return [cx - w / 2, cy - h / 2, w, h];
  }
  function fit(spots) { $("board").setAttribute("viewBox", fitBox(spots).join(" ")); }

  // Where the tower at tile (x, y) with `height` floors is drawn (board SVG units): its centre line
  // cx, its base, its roof, the floors' height fh, the box [x0, y0, x1, y1] the drawing covers
  // (battlements and height label included) and the point its top follower stands on.
  function towerShape(x, y, height) {
    const cx = x * S + S / 2, base = -y * S + S / 2 + 12;
    const fh = Math.min(8, 28 / height), roof = base - height * fh;
    return { cx, base, roof, fh, box: [cx - 10, roof - 3, cx + 19.5, base], topAt: [cx, roof - 10] };
  }
  function drawTower(x, y, floors, top) {
    const g = el("g", { class: "tower", "data-height": floors.length }, layers.towers);
    const { cx, base, roof, fh, topAt } = towerShape(x, y, floors.length);
    floors.forEach((c, i) => el("rect", { x: cx - 10, y: base - (i + 1) * fh, width: 20, height: fh, fill: FLOORS[c],
      stroke: "#222", "stroke-width": 0.8 }, g));
    const colour = FLOORS[floors[floors.length - 1]];  // battlements in the top floor's colour: white caps it
    for (const dx of [-10, -2.5, 5]) el("rect", { x: cx + dx, y: roof - 3, width: 5, height: 3, fill: colour, stroke: "#222", "stroke-width": 0.6 }, g);
    el("circle", { cx: cx + 13, cy: base - 4, r: 6.5, fill: "#fff", stroke: "#222", "stroke-width": 1, class: "tower-badge" }, g);
    el("text", { x: cx + 13, y: base - 1, "text-anchor": "middle", class: "tower-label", fill: "#111" }, g).textContent = floors.length;
    el("title", {}, g).textContent = `tower at (${x},${y}), height ${floors.length}: ` + floors.map((c) => FLOOR_NAMES[c]).join(", ");
    if (top >= 0) meeple(topAt[0], topAt[1], top, TOP_MEEPLE, layers.followers, false).classList.add("tower-top");
  }

  function playerCard(p, seat, active) {
    const info = data.players[seat];
    const card = document.createElement("div");
    card.className = "player" + (active ? " active" : "");
    const parts = [`followers in supply: ${p.supply}`];
    if (p.floors) parts.push(`floors: ${p.floors[0]} normal, ${p.floors[1]} black, ${p.floors[2]} white`);
    const held = p.prisoners.map((n, o) => (n ? `${n} of ${data.players[o].name}` : "")).filter(Boolean);
    if (p.floors) parts.push("prisoners: " + (held.length ? held.join(", ") : "none"));
    // Built as text nodes, never as markup: agent names come from game files (untrusted input).
    const span = (cls, text) => {
      const e = document.createElement("span");
      e.className = cls;
      e.textContent = text;
      return e;
    };
    const swatch = span("swatch", "");
    swatch.style.background = info.colour;
    const score = span("score", String(p.score));
    score.dataset.seat = String(seat);
    const details = span("details", "");
    parts.forEach((line, i) => {
      if (i) details.appendChild(document.createElement("br"));
      details.appendChild(document.createTextNode(line));
    });
    card.append(swatch, span("name", info.name + (info.agent ? " · " + info.agent : "")), score, details);
    return card;
  }

  // The board of frame f: the placed tiles [x, y, symbol, id] (in placement order), the last one
  // framed when markLast, then the towers and the followers.
  function drawBoard(tiles, f, markLast) {
    for (const layer of Object.values(layers)) layer.replaceChildren();
    for (const [x, y, sym, id] of tiles) {
      const u = el("use", { href: "#" + sym, x: x * S, y: -y * S, width: S, height: S, class: "tile", "data-tile": id }, layers.tiles);
      el("title", {}, u).textContent = `${id} at (${x},${y})`;
    }
    if (markLast && tiles.length > 1) {
      const [x, y] = tiles[tiles.length - 1];
      el("rect", { x: x * S + 1.5, y: -y * S + 1.5, width: S - 3, height: S - 3, class: "tile-mark" }, layers.marks);
    }
    for (const [x, y, floors, top] of f.towers) if (floors.length) drawTower(x, y, floors, top);
    for (const [x, y, seat, kind] of f.followers) meeple(x, y, seat, MEEPLE, layers.followers, kind === "field");
  }

  // The legend of the watchtower discs, filled into the element #watchtower-legend (a <details>
  // on the board) and shown: per subject of data.watchtowers its disc (a symbol) and what it
  // scores. Without the watchtowers expansion the list is empty and the legend stays hidden.
  function drawLegend() {
    const legend = $("watchtower-legend");
    if (!data.watchtowers.length) return;
    const summary = document.createElement("summary");
    summary.textContent = "watchtowers: points per item in the 3×3 around";
    summary.title = "When a road or city is completed, each follower on it that stands on a watchtower's tile "
      + "earns its owner the watchtower's points for every item it counts on the 3×3 tiles around it (R62, R63).";
    const list = document.createElement("ul");
    for (const w of data.watchtowers) {
      const li = document.createElement("li");
      li.dataset.letter = w.letter;
      li.title = `${w.letter}: the ${w.subject.replaceAll("-", " ")} watchtower`;
      const disc = el("svg", { viewBox: `0 0 ${S} ${S}`, width: 16, height: 16, "aria-hidden": "true" }, li);
      el("use", { href: "#" + w.symbol, width: S, height: S }, disc);
      const words = document.createElement("span");
      words.textContent = w.words;
      li.appendChild(words);
      list.appendChild(li);
    }
    legend.replaceChildren(summary, list);
    legend.hidden = false;
  }

  function drawHand(svg, symbol) {  // the tile in hand (a symbol id) in its own small svg, or nothing
    svg.replaceChildren();
    svg.style.display = symbol ? "" : "none";
    if (symbol) el("use", { href: "#" + symbol, width: S, height: S }, svg);
  }

  return { S, MEEPLE, TOP_MEEPLE, $, el, layers, meeple, fitBox, fit, towerShape, drawTower, playerCard, drawBoard,
    drawHand, drawLegend };
}
