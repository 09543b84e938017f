// Draws the live region map with Leaflet: Natural Earth land and country
// borders (always, so the page is never blank offline), the tile layer
// the server names (unless "none"), shard areas, margins and borders
// coloured by fan-out or handoffs, member density per geohash cell, and
// shard labels. The view, colour mode, time span, density switch and the
// highlighted border live in the URL hash, so a link shows the same map.
"use strict";
(function () {
  const init = window.GEOSHARD_INIT;
  const $ = id => document.getElementById(id);
  const state = readHash();
  let snaps = [init.data]; // recent snapshots, oldest first, for rates
  let drawn = null;        // layers of the last draw
  let density = null;      // last /map/density.json reply

  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    const s = {mode: p.get("mode") === "handoffs" ? "handoffs" : "fanout",
      span: p.get("span") === "total" ? "total" : "rate",
      density: p.get("density") !== "0", border: p.get("border") || "", view: null};
    const v = (p.get("view") || "").split(",").map(Number);
    if (v.length === 3 && v.every(Number.isFinite)) s.view = v; // lat, lon, zoom
    return s;
  }

  function writeHash() {
    const c = map.getCenter();
    const p = new URLSearchParams({mode: state.mode, span: state.span,
      view: [c.lat.toFixed(5), c.lng.toFixed(5), map.getZoom()].join(",")});
    if (!state.density) p.set("density", "0");
    if (state.border) p.set("border", state.border);
    history.replaceState(null, "", "#" + p.toString());
    $("map").dataset.mode = state.mode;
    $("map").dataset.span = state.span;
    $("map").dataset.view = p.get("view");
  }

  // Map, panes and base layers.
  const map = L.map("map", {zoomSnap: 0.5, worldCopyJump: true, preferCanvas: false});
  [["natural", 250], ["areas", 380], ["density", 390], ["margins", 410], ["borders", 420]]
    .forEach(([name, z]) => { map.createPane(name).style.zIndex = z; });
  map.getPane("natural").style.pointerEvents = "none";
  map.getPane("density").style.pointerEvents = "none";
  const offline = init.tiles === "none";
  if (offline) {
    $("map").classList.add("offline");
  } else {
    L.tileLayer(init.tiles, {maxZoom: 19, attribution: "&copy; OpenStreetMap contributors"}).addTo(map);
  }
  fetch("/map/vendor/countries-50m.json").then(r => r.json()).then(topo => {
    const land = topojson.feature(topo, topo.objects.countries);
    // Rings that cross the antimeridian jump from +180 to -180; unwrap
    // them so Leaflet does not draw a line across the whole world.
    const unwrap = ring => {
      let shift = 0, prev = ring[0][0];
      for (let i = 1; i < ring.length; i++) {
        const raw = ring[i][0], d = raw - prev;
        if (d > 180) shift -= 360;
        else if (d < -180) shift += 360;
        prev = raw;
        ring[i] = [raw + shift, ring[i][1]];
      }
    };
    land.features.forEach(f => {
      const g = f.geometry;
      if (!g) return;
      (g.type === "Polygon" ? [g.coordinates] : g.type === "MultiPolygon" ? g.coordinates : []).forEach(p => p.forEach(unwrap));
    });
    L.geoJSON(land, {pane: "natural", interactive: false, style: {
      color: "#6b6b6b", weight: 0.6, fill: offline, fillColor: "#f4f1ea", fillOpacity: 1}}).addTo(map);
    $("map").dataset.naturalEarth = land.features.length;
  });
  const densityRenderer = L.svg({pane: "density"});

  if (state.view) {
    map.setView([state.view[0], state.view[1]], state.view[2]);
  } else {
    const v = init.data.view;
    if (v[2] > v[0] && v[3] > v[1]) map.fitBounds([[v[1], v[0]], [v[3], v[2]]]);
    else map.setView([20, 0], 2);
  }

  // Colours.
  function ramp(t) { // green -> orange -> red
    t = Math.max(0, Math.min(1, t));
    const lo = [26, 150, 65], mid = [253, 174, 97], hi = [215, 25, 28];
    const [a, b, u] = t <= 0.5 ? [lo, mid, t * 2] : [mid, hi, (t - 0.5) * 2];
    return "rgb(" + a.map((v, i) => Math.round(v + (b[i] - v) * u)).join(",") + ")";
  }
  function purple(t) {
    t = Math.max(0, Math.min(1, t));
    const a = [239, 237, 245], b = [84, 39, 143];
    return "rgb(" + a.map((v, i) => Math.round(v + (b[i] - v) * t)).join(",") + ")";
  }
  function fmt(v) {
    if (Number.isInteger(v)) return v.toLocaleString("en");
    if (v >= 100) return Math.round(v).toLocaleString("en");
    return v >= 10 ? v.toFixed(1) : v.toFixed(2);
  }

  // Figures: per second over the oldest snapshot of the last 30 s, or
  // totals since start (also until a second snapshot arrives).
  function figure(get) {
    const cur = snaps[snaps.length - 1], old = snaps[0];
    if (state.span === "total" || old === cur) return get(cur);
    const dt = Math.max((cur.timeMs - old.timeMs) / 1000, 0.001);
    return Math.max(get(cur) - (get(old) || 0), 0) / dt;
  }
  function isRate() { return state.span === "rate" && snaps.length > 1; }
  function unit() { return isRate() ? "/s" : " total"; }
  const borderKey = () => state.mode === "fanout" ? "searches" : "handoffs";
  function borderFig(name, key) {
    return figure(s => { const b = s.borders.find(b => b.name === name); return b ? b[key] : 0; });
  }
  function shardFig(id) {
    return figure(s => {
      const x = s.shards[id];
      if (!x) return 0;
      return state.mode === "fanout" ? x.searches : x.handoffsIn + x.handoffsOut;
    });
  }

  function legend(el, title, colour, max, extra) {
    el.innerHTML = "";
    const h = document.createElement("div");
    h.textContent = title;
    const bar = document.createElement("div");
    bar.className = "bar";
    bar.style.background = "linear-gradient(to right," + [0, .25, .5, .75, 1].map(colour).join(",") + ")";
    const ticks = document.createElement("div");
    ticks.className = "ticks";
    if (!(max > 0)) {
      bar.style.background = colour(0);
      extra = (extra ? extra + "; " : "") + "none yet";
    }
    (max > 0 ? [0, max / 2, max] : [0]).forEach(v => {
      const s = document.createElement("span");
      s.className = "tick";
      s.dataset.v = v;
      s.textContent = fmt(v);
      ticks.appendChild(s);
    });
    el.append(h, bar, ticks);
    if (extra) { const p = document.createElement("div"); p.textContent = extra; el.appendChild(p); }
  }

  function metresPerPixel(lat) {
    return 40075016.686 * Math.cos(lat * Math.PI / 180) / (256 * Math.pow(2, map.getZoom()));
  }

  function tip(b) {
    const r = k => fmt(borderFig(b.name, k)) + unit();
    return "<b>" + b.name + "</b><br>searches that asked both: " + r("searches") +
      "<br>handoffs: " + r("handoffs") + "<br>flaps suppressed: " + r("flaps") +
      "<br>totals: " + b.searches + " searches, " + b.handoffs + " handoffs, " + b.flaps + " flaps";
  }

  function draw() {
    const d = snaps[snaps.length - 1];
    $("version").textContent = "— " + d.version + ", margin " + d.margin + " m";
    if (drawn) drawn.forEach(l => l.remove());
    drawn = [];
    const bVals = d.borders.map(b => borderFig(b.name, borderKey()));
    const bMax = Math.max(...bVals, 0);
    const sVals = d.shards.map(s => shardFig(s.id));
    const sMax = Math.max(...sVals, 0);
    const total = d.shards.reduce((a, s) => a + s.members, 0);
    d.shards.forEach((s, i) => {
      if (!s.areas.length) return;
      const ll = s.areas.map(poly => poly.map(ring => ring.map(p => [p[1], p[0]])));
      const t = sMax > 0 ? sVals[i] / sMax : 0;
      const pg = L.polygon(ll, {pane: "areas", color: "#34495e", weight: 1, fillColor: ramp(t), fillOpacity: 0.18}).addTo(map);
      pg.getElement().setAttribute("data-shard", s.name);
      pg.getElement().setAttribute("data-value", sVals[i]);
      drawn.push(pg);
      if (s.label) {
        const share = total ? " (" + (100 * s.members / total).toFixed(0) + " %)" : "";
        const m = L.marker([s.label[1], s.label[0]], {interactive: false, keyboard: false, icon: L.divIcon({
          className: "shard-label", iconSize: null,
          html: '<span data-label="' + s.name + '" data-lonlat="' + s.label[0] + "," + s.label[1] + '">' + s.name +
            "<br><small>" + s.members.toLocaleString("en") + " members" + share + "</small></span>"})}).addTo(map);
        drawn.push(m);
      }
    });
    d.borders.forEach((b, i) => {
      if (!b.segments.length) return;
      const ll = b.segments.map(sg => [[sg[0][1], sg[0][0]], [sg[1][1], sg[1][0]]]);
      const t = bMax > 0 ? bVals[i] / bMax : 0;
      const lat = b.segments[0][0][1];
      const band = L.polyline(ll, {pane: "margins", color: ramp(t), opacity: 0.3, lineCap: "butt", interactive: false,
        weight: Math.max(2, 2 * d.margin / metresPerPixel(lat))}).addTo(map);
      band.getElement().setAttribute("data-margin", b.name);
      band.marginLat = lat;
      const line = L.polyline(ll, {pane: "borders", color: ramp(t), weight: 2 + 5 * t, opacity: 0.95}).addTo(map);
      line.getElement().setAttribute("data-border", b.name);
      line.getElement().setAttribute("data-value", bVals[i]);
      line.bindTooltip(() => tip(b), {sticky: true});
      line.on("mouseover", () => line.setStyle({weight: 4 + 5 * t}));
      line.on("mouseout", () => line.setStyle({weight: 2 + 5 * t}));
      line.on("click", () => { state.border = state.border === b.name ? "" : b.name; writeHash(); });
      drawn.push(band, line);
      if (b.name === state.border) {
        line.openTooltip(L.latLng(ll[0][0][0] / 2 + ll[0][1][0] / 2, ll[0][0][1] / 2 + ll[0][1][1] / 2));
        line.getTooltip().getElement().setAttribute("data-tip", b.name);
      }
    });
    const what = state.mode === "fanout" ? "searches that asked both shards" : "members handed over";
    legend($("legend-borders"), "Borders and margins: " + what + unit(), ramp, bMax);
    legend($("legend-shards"), "Shard areas: " + (state.mode === "fanout" ? "searches that asked the shard" :
      "handoffs in + out") + unit(), ramp, sMax);
    drawDensity();
    tables(d, bVals);
    const fan = d.fanout.reduce((a, v) => a + v, 0);
    const multi = fan - (d.fanout[0] || 0);
    $("stats").textContent = total.toLocaleString("en") + " members · " + fan.toLocaleString("en") +
      " searches, " + (fan ? (100 * multi / fan).toFixed(1) : "0.0") + " % fanned out · degraded " + d.degraded;
    ["fanout", "handoffs"].forEach(m => $("mode-" + m).classList.toggle("on", state.mode === m));
    ["rate", "total"].forEach(m => $("span-" + m).classList.toggle("on", state.span === m));
    writeHash();
  }

  function tables(d, bVals) {
    const bt = $("borders");
    const rows = d.borders.map((b, i) => [b, bVals[i]]).sort((x, y) => y[1] - x[1]);
    const all = bt.dataset.all === "1";
    const shown = all ? rows : rows.slice(0, 12);
    bt.innerHTML = "<tr><th>border</th><th>" + (state.mode === "fanout" ? "fan-out" : "handoffs") + unit() +
      "</th><th>searches</th><th>handoffs</th><th>flaps</th></tr>";
    shown.forEach(([b, v]) => {
      const tr = bt.insertRow();
      tr.dataset.border = b.name;
      [b.name + (b.segments.length ? "" : " (corner)"), fmt(v), b.searches, b.handoffs, b.flaps].forEach(x => {
        tr.insertCell().textContent = x;
      });
    });
    if (rows.length > shown.length || all) {
      const tr = bt.insertRow(), td = tr.insertCell();
      td.colSpan = 5;
      const a = document.createElement("a");
      a.href = "javascript:void 0";
      a.textContent = all ? "show the 12 busiest" : "show all " + rows.length + " borders";
      a.onclick = () => { bt.dataset.all = all ? "0" : "1"; draw(); };
      td.appendChild(a);
    }
    const st = $("shards");
    st.innerHTML = "<tr><th>shard</th><th>members</th><th>searches</th><th>handoffs in/out</th></tr>";
    d.shards.forEach(s => {
      const tr = st.insertRow();
      tr.dataset.shard = s.name;
      [s.name + (s.catchall ? " (catch-all)" : ""), s.members.toLocaleString("en"), s.searches,
        s.handoffsIn + "/" + s.handoffsOut].forEach(x => { tr.insertCell().textContent = x; });
    });
  }

  // Density: cells of about 16 px at the current zoom.
  let densityLayer = null;
  function densityStep() { return Math.max(3, Math.min(24, Math.round(map.getZoom()) + 4)); }
  function loadDensity() {
    if (!state.density) { drawDensity(); return; }
    const b = map.getBounds();
    const box = [Math.max(b.getWest(), -180), Math.max(b.getSouth(), -85.06), Math.min(b.getEast(), 180),
      Math.min(b.getNorth(), 85.06)].map(v => v.toFixed(5)).join(",");
    fetch("/map/density.json?step=" + densityStep() + "&bbox=" + box).then(r => r.json()).then(j => {
      density = j;
      drawDensity();
    });
  }
  function drawDensity() {
    if (densityLayer) densityLayer.remove();
    densityLayer = null;
    const el = $("legend-density");
    if (!state.density || !density) { el.innerHTML = ""; return; }
    const km = Math.round(40075 / Math.pow(2, density.step) * 10) / 10;
    legend(el, "Density: members per cell (about " + km + " km wide at the equator, step " + density.step + ")",
      purple, density.max, density.total.toLocaleString("en") + " members in view" +
      (density.dropped ? ", " + density.dropped + " sparse cells not drawn" : ""));
    densityLayer = L.layerGroup().addTo(map);
    const lmax = Math.log1p(density.max || 1);
    density.cells.forEach(c => {
      const t = Math.log1p(c.n) / lmax;
      const r = L.rectangle([[c.box[1], c.box[0]], [c.box[3], c.box[2]]], {renderer: densityRenderer,
        pane: "density", stroke: false, fillColor: purple(0.15 + 0.85 * t), fillOpacity: 0.55, interactive: false});
      r.addTo(densityLayer);
      r.getElement().setAttribute("data-n", c.n);
    });
    el.dataset.step = density.step;
  }

  map.on("zoomend", () => {
    if (drawn) drawn.forEach(l => { if (l.marginLat !== undefined) {
      l.setStyle({weight: Math.max(2, 2 * snaps[snaps.length - 1].margin / metresPerPixel(l.marginLat))});
    } });
  });
  map.on("moveend", () => { writeHash(); loadDensity(); });
  $("mode-fanout").onclick = () => { state.mode = "fanout"; draw(); };
  $("mode-handoffs").onclick = () => { state.mode = "handoffs"; draw(); };
  $("span-rate").onclick = () => { state.span = "rate"; draw(); };
  $("span-total").onclick = () => { state.span = "total"; draw(); };
  $("density-on").checked = state.density;
  $("density-on").onchange = e => { state.density = e.target.checked; loadDensity(); writeHash(); };

  function poll() {
    fetch("/map/data.json").then(r => r.json()).then(d => {
      snaps.push(d);
      while (snaps.length > 2 && d.timeMs - snaps[1].timeMs >= 30000) snaps.shift();
      draw();
    }).finally(() => setTimeout(poll, 2000));
  }
  let densityTimer = setInterval(loadDensity, 5000);
  draw();
  loadDensity();
  setTimeout(poll, 1000);
  window.addEventListener("hashchange", () => {
    const s = readHash();
    Object.assign(state, {mode: s.mode, span: s.span, density: s.density, border: s.border});
    if (s.view) map.setView([s.view[0], s.view[1]], s.view[2]);
    draw();
  });
  void densityTimer;
})();
