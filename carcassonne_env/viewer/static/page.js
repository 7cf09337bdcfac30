"use strict";
// The replay page: draws frame k of the embedded data (carcassonne_env/viewer/snapshots.py).
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const S = data.size, frames = data.frames, last = frames.length - 1;
  const FLOORS = data.floor_colours, FLOOR_NAMES = ["normal", "black", "white"];
  const $ = (id) => document.getElementById(id);
  const layers = { tiles: $("tiles"), marks: $("marks"), towers: $("towers"), followers: $("followers") };
  let current = 0, timer = null;

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

  function fit(n) {  // the view: the first n tiles with a tile's margin, where the next ones may go
    const xs = data.tiles.slice(0, n).map((t) => t[0]), ys = data.tiles.slice(0, n).map((t) => t[1]);
    const w = Math.max(9, Math.max(...xs) - Math.min(...xs) + 3) * S;  // at least 9 × 7 tiles
    const h = Math.max(7, Math.max(...ys) - Math.min(...ys) + 3) * S;
    const cx = (Math.min(...xs) + Math.max(...xs) + 1) * S / 2, cy = (1 - Math.min(...ys) - Math.max(...ys)) * S / 2;
    $("board").setAttribute("viewBox", `${cx - w / 2} ${cy - h / 2} ${w} ${h}`);
  }
  $("variant").textContent = data.expansions.length ? "with " + data.expansions.join(", ").replaceAll("_", " ") : "base game";
  $("slider").max = last;

  function drawTower(x, y, floors, top) {
    const g = el("g", { class: "tower", "data-height": floors.length }, layers.towers);
    const cx = x * S + S / 2, base = -y * S + S / 2 + 12;
    const fh = Math.min(8, 28 / floors.length);
    floors.forEach((c, i) => el("rect", { x: cx - 10, y: base - (i + 1) * fh, width: 20, height: fh, fill: FLOORS[c],
      stroke: "#222", "stroke-width": 0.8 }, g));
    const roof = base - floors.length * fh;
    const colour = FLOORS[floors[floors.length - 1]];  // battlements in the top floor's colour: white caps it
    for (const dx of [-10, -2.5, 5]) el("rect", { x: cx + dx, y: roof - 3, width: 5, height: 3, fill: colour, stroke: "#222", "stroke-width": 0.6 }, g);
    el("circle", { cx: cx + 13, cy: base - 4, r: 6.5, fill: "#fff", stroke: "#222", "stroke-width": 1 }, g);
    el("text", { x: cx + 13, y: base - 1, "text-anchor": "middle", class: "tower-label", fill: "#111" }, g).textContent = floors.length;
    el("title", {}, g).textContent = `tower at (${x},${y}), height ${floors.length}: ` + floors.map((c) => FLOOR_NAMES[c]).join(", ");
    if (top >= 0) meeple(cx, roof - 10, top, 17, layers.followers, false).classList.add("tower-top");
  }

  function playerCard(p, seat, frame) {
    const info = data.players[seat];
    const card = document.createElement("div");
    card.className = "player" + (frame.actor === seat ? " active" : "");
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

  function render(k) {
    current = Math.max(0, Math.min(last, k));
    const f = frames[current];
    for (const layer of Object.values(layers)) layer.replaceChildren();
    fit(Math.max(1, f.tiles));
    for (let i = 0; i < f.tiles; i++) {
      const [x, y, sym, id] = data.tiles[i];
      const u = el("use", { href: "#" + sym, x: x * S, y: -y * S, width: S, height: S, class: "tile", "data-tile": id }, layers.tiles);
      el("title", {}, u).textContent = `${id} at (${x},${y})`;
    }
    if (f.tiles > 1 && current > 0) {
      const [x, y] = data.tiles[f.tiles - 1];
      el("rect", { x: x * S + 1.5, y: -y * S + 1.5, width: S - 3, height: S - 3, class: "tile-mark" }, layers.marks);
    }
    for (const [x, y, floors, top] of f.towers) if (floors.length) drawTower(x, y, floors, top);
    for (const [x, y, seat, kind] of f.followers) meeple(x, y, seat, 20, layers.followers, kind === "field");
    $("slider").value = current;
    $("position").textContent = `decision ${current} of ${last} · turn ${f.turn}`;
    $("action").textContent = f.action;
    $("next-decision").textContent = f.next;
    $("hand").replaceChildren();
    $("hand").style.display = f.hand ? "" : "none";
    if (f.hand) el("use", { href: "#" + f.hand, width: S, height: S }, $("hand"));
    $("players").replaceChildren(...f.players.map((p, seat) => playerCard(p, seat, f)));
    const events = $("events");
    events.replaceChildren();
    for (const [seat, pts, words] of f.events) {
      const li = document.createElement("li");
      li.className = "event";
      const points = document.createElement("span");
      points.className = "pts";
      points.style.color = data.players[seat].colour;
      points.textContent = `${pts > 0 ? "+" : ""}${pts}`;
      li.append(points, document.createTextNode(`${data.players[seat].name}: ${words}`));
      events.appendChild(li);
    }
    if (!f.events.length) events.innerHTML = '<li class="none">no points scored yet this turn</li>';
  }

  function play() {
    if (timer) { clearInterval(timer); timer = null; return; }
    if (current === last) render(0);
    timer = setInterval(() => { if (current >= last) play(); else render(current + 1); }, 350);
  }
  $("first").onclick = () => render(0);
  $("prev").onclick = () => render(current - 1);
  $("next").onclick = () => render(current + 1);
  $("last").onclick = () => render(last);
  $("play").onclick = play;
  $("slider").oninput = (e) => render(Number(e.target.value));
  document.addEventListener("keydown", (e) => {
    const keys = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last };
    if (e.key in keys) { render(keys[e.key]); e.preventDefault(); }
    else if (e.key === " ") { play(); e.preventDefault(); }
  });
  render(0);
})();
