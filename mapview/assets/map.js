// Draws the region map from /map/data.json snapshots: shard areas shaded
// by driver density, borders coloured by live rates computed from the
// difference between successive snapshots (totals until there are two).
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const W = 800, H = 600, PAD = 12;
  const svg = document.getElementById("map");
  let metric = "fanout";
  let prev = null, cur = null;

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // Equirectangular, scaled by the cosine of the middle latitude.
  function projection(view) {
    let [x0, y0, x1, y1] = view;
    if (!(x1 > x0 && y1 > y0)) { x0 = -180; y0 = -85; x1 = 180; y1 = 85; }
    const cos = Math.max(Math.cos((y0 + y1) / 2 * Math.PI / 180), 0.05);
    const s = Math.min((W - 2 * PAD) / ((x1 - x0) * cos), (H - 2 * PAD) / (y1 - y0));
    return p => [PAD + (p[0] - x0) * cos * s, PAD + (y1 - p[1]) * s];
  }

  function areaKm2(polys) {
    let a = 0;
    for (const poly of polys) {
      poly.forEach((ring, i) => {
        let s = 0;
        for (let k = 0; k + 1 < ring.length; k++) {
          const c = Math.cos(ring[k][1] * Math.PI / 180);
          s += (ring[k][0] * ring[k + 1][1] - ring[k + 1][0] * ring[k][1]) * c;
        }
        a += (i === 0 ? 1 : -1) * Math.abs(s) / 2;
      });
    }
    return a * 111.2 * 111.2;
  }

  function ramp(t) { // green -> orange -> red
    t = Math.max(0, Math.min(1, t));
    const lo = [26, 150, 65], mid = [253, 174, 97], hi = [215, 25, 28];
    const [a, b, u] = t <= 0.5 ? [lo, mid, t * 2] : [mid, hi, (t - 0.5) * 2];
    return "rgb(" + a.map((v, i) => Math.round(v + (b[i] - v) * u)).join(",") + ")";
  }

  function shade(t) { // light to dark blue
    t = Math.max(0, Math.min(1, t));
    const a = [239, 243, 255], b = [8, 69, 148];
    return "rgb(" + a.map((v, i) => Math.round(v + (b[i] - v) * t)).join(",") + ")";
  }

  // Per-second rates between snapshots, or totals for the first one.
  function rate(get) {
    if (!prev) return get(cur);
    const dt = Math.max((cur.timeMs - prev.timeMs) / 1000, 0.001);
    return Math.max(get(cur) - get(prev), 0) / dt;
  }

  function borderValue(i) {
    const key = metric === "fanout" ? "searches" : "handoffs";
    const pb = prev && prev.borders[i] && prev.borders[i].name === cur.borders[i].name ? prev.borders[i] : null;
    if (!prev) return cur.borders[i][key];
    const dt = Math.max((cur.timeMs - prev.timeMs) / 1000, 0.001);
    return Math.max(cur.borders[i][key] - (pb ? pb[key] : 0), 0) / dt;
  }

  function draw() {
    const d = cur;
    document.getElementById("version").textContent = "— " + d.version + ", margin " + d.margin + " m";
    const proj = projection(d.view);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const densities = d.shards.map(s => s.areas.length ? s.members / Math.max(areaKm2(s.areas), 1e-9) : 0);
    const maxD = Math.max(...densities, 1e-9);
    const gAreas = el("g", {id: "areas"}, svg);
    d.shards.forEach((s, i) => {
      if (!s.areas.length) return;
      let path = "";
      for (const poly of s.areas) for (const ring of poly) {
        ring.forEach((p, k) => { const [x, y] = proj(p); path += (k ? "L" : "M") + x.toFixed(1) + " " + y.toFixed(1); });
        path += "Z";
      }
      const e = el("path", {d: path, "data-shard": s.name, fill: shade(0.1 + 0.6 * Math.sqrt(densities[i] / maxD)),
        "fill-rule": "evenodd", stroke: "#fff", "stroke-width": 0.5}, gAreas);
      el("title", {}, e).textContent = s.name + ": " + s.members + " members, " + densities[i].toFixed(1) + "/km²";
    });
    const values = d.borders.map((b, i) => borderValue(i));
    const maxV = Math.max(...values, 0);
    const gBorders = el("g", {id: "borders-layer"}, svg);
    d.borders.forEach((b, i) => {
      const t = maxV > 0 ? values[i] / maxV : 0;
      const g = el("g", {"data-border": b.name, stroke: ramp(t), "stroke-width": (1.5 + 5 * t).toFixed(1),
        "stroke-linecap": "round"}, gBorders);
      for (const seg of b.segments) {
        const [x1, y1] = proj(seg[0]), [x2, y2] = proj(seg[1]);
        el("line", {x1: x1, y1: y1, x2: x2, y2: y2}, g);
      }
      el("title", {}, g).textContent = b.name + ": " + b.searches + " searches, " + b.handoffs + " handoffs, " + b.flaps + " flaps suppressed";
    });
    const gLabels = el("g", {id: "labels", "font-size": 12, "text-anchor": "middle"}, svg);
    d.shards.forEach((s, i) => {
      if (!s.areas.length) return;
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const poly of s.areas) for (const p of poly[0]) {
        const [x, y] = proj(p);
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
      const t = el("text", {x: (x0 + x1) / 2, y: (y0 + y1) / 2, fill: 0.1 + 0.6 * Math.sqrt(densities[i] / maxD) > 0.45 ? "#fff" : "#222"}, gLabels);
      t.textContent = s.name + " (" + s.members + ")";
    });
    drawSide(values, maxV, densities);
  }

  function drawSide(values, maxV, densities) {
    const d = cur;
    const fan = d.fanout.reduce((a, b) => a + b, 0), multi = fan - (d.fanout[0] || 0);
    const searchRate = rate(x => x.fanout.reduce((a, b) => a + b, 0));
    const multiRate = rate(x => x.fanout.reduce((a, b) => a + b, 0) - (x.fanout[0] || 0));
    const handoffRate = rate(x => x.borders.reduce((a, b) => a + b.handoffs, 0));
    const members = d.shards.reduce((a, s) => a + s.members, 0);
    const unit = prev ? "/s" : " total";
    document.getElementById("stats").textContent =
      members + " members · searches " + searchRate.toFixed(prev ? 1 : 0) + unit +
      " · fan-out " + (searchRate > 0 ? (100 * multiRate / searchRate).toFixed(1) : "0.0") + "% (all time " +
      (fan > 0 ? (100 * multi / fan).toFixed(1) : "0.0") + "%) · handoffs " + handoffRate.toFixed(1) + unit +
      " · degraded " + d.degraded;
    let lg = "";
    for (let i = 0; i < 10; i++) lg += '<span class="ramp" style="background:' + ramp(i / 9) + '"></span>';
    document.getElementById("legend").innerHTML = lg + " 0 … " + maxV.toFixed(prev ? 2 : 0) +
      (metric === "fanout" ? " searches asking both shards" : " handoffs") + unit;
    const st = document.getElementById("shards");
    st.innerHTML = "<tr><th>shard</th><th>members</th><th>per km²</th><th>writes</th><th>searches</th><th>degraded</th></tr>";
    d.shards.forEach((s, i) => {
      const r = st.insertRow();
      [s.name, s.members, s.areas.length ? densities[i].toFixed(1) : "–", s.writes, s.searches, s.degraded]
        .forEach(v => { r.insertCell().textContent = v; });
    });
    const bt = document.getElementById("borders");
    bt.innerHTML = "<tr><th>border</th><th>searches</th><th>handoffs</th><th>flaps suppressed</th><th>" +
      (metric === "fanout" ? "fan-out" : "handoffs") + unit + "</th></tr>";
    d.borders.forEach((b, i) => {
      const r = bt.insertRow();
      [b.name, b.searches, b.handoffs, b.flaps, values[i].toFixed(prev ? 2 : 0)]
        .forEach(v => { r.insertCell().textContent = v; });
    });
  }

  function update(data) {
    prev = cur;
    cur = data;
    draw();
  }

  function poll() {
    fetch("/map/data.json", {cache: "no-store"})
      .then(r => r.ok ? r.json() : Promise.reject(r.status))
      .then(update)
      .catch(e => { document.getElementById("stats").textContent = "cannot load /map/data.json: " + e; })
      .finally(() => setTimeout(poll, 2000));
  }

  for (const [id, m] of [["by-fanout", "fanout"], ["by-handoffs", "handoffs"]]) {
    document.getElementById(id).addEventListener("click", () => {
      metric = m;
      document.getElementById("by-fanout").classList.toggle("on", m === "fanout");
      document.getElementById("by-handoffs").classList.toggle("on", m === "handoffs");
      if (cur) draw();
    });
  }
  if (window.GEOSHARD_INITIAL) update(window.GEOSHARD_INITIAL);
  setTimeout(poll, window.GEOSHARD_INITIAL ? 2000 : 0);
})();
