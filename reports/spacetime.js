// The report's space-time diagram: one lane per node, time left to right.
// Messages are arrows from their sending to their delivery (grey), loss
// (red, dashed, ending in a cross) or second delivery (orange); timer
// firings are ticks; leadership tenures are bars on the lane; faults are
// shaded. Wheel zooms in time around the pointer, dragging pans, a click
// shows the record. Self-contained: no library, nothing fetched.
(function () {
  "use strict";
  var src = document.getElementById("st-data");
  var svg = document.getElementById("st");
  if (!src || !svg) { return; }
  var d = JSON.parse(src.textContent);
  var NS = "http://www.w3.org/2000/svg";
  var laneH = 44, left = 64, right = 16, top = 18, W = 1120;
  var H = top + d.nodes.length * laneH + 10;
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("height", H);
  // What is drawn spans lo..end (a long run's diagram may start at the
  // lead-up to its first fault). Open on a readable window: around the
  // first fault if it is drawn, else the start of what is.
  var lo = d.start_ms || 0, end = Math.max(d.end_ms, lo + 1), t0 = lo, t1 = Math.min(end, lo + 2000);
  var first = (d.faults || []).reduce(function (m, f) { return Math.min(m, f.FromMs); }, Infinity);
  if (first >= lo && first < end) { t0 = Math.max(lo, first - 500); t1 = Math.min(end, first + 1500); }
  var home = [t0, t1];
  var lane = {};
  d.nodes.forEach(function (n, i) { lane[n] = i; });
  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    (parent || svg).appendChild(e);
    return e;
  }
  function y(i) { return top + i * laneH + laneH / 2; }
  function x(t) { return left + (t - t0) / (t1 - t0) * (W - left - right); }
  var defs = el("defs", {});
  [["arrow", "#6b6b6b"], ["arrow-dup", "#e07b00"]].forEach(function (m) {
    var mk = el("marker", {id: "st-" + m[0], viewBox: "0 0 8 8", refX: "7", refY: "4", markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse"}, defs);
    el("path", {d: "M0,0 L8,4 L0,8 z", fill: m[1]}, mk);
  });
  var clip = el("clipPath", {id: "st-clip"}, defs);
  el("rect", {x: left, y: 0, width: W - left - right, height: H}, clip);
  var bands = el("g", {"class": "st-bands", "clip-path": "url(#st-clip)"});
  var lanes = el("g", {"class": "st-lanes"});
  var arrows = el("g", {"class": "st-arrows", "clip-path": "url(#st-clip)"});
  var marks = el("g", {"class": "st-marks", "clip-path": "url(#st-clip)"});
  var items = []; // {el, kind, data}
  d.nodes.forEach(function (n, i) {
    el("line", {x1: left, x2: W - right, y1: y(i), y2: y(i), "class": "lane"}, lanes);
    var t = el("text", {x: 6, y: y(i) + 4, "class": "lane-label"}, lanes);
    t.textContent = n;
  });
  (d.faults || []).forEach(function (f) {
    var r = el("rect", {"class": "fault " + (f.Kind || ""), "data-kind": "fault"}, bands);
    items.push({el: r, kind: "fault", data: f});
  });
  (d.tenures || []).forEach(function (s) {
    var r = el("rect", {"class": "tenure", "data-kind": "tenure"}, bands);
    items.push({el: r, kind: "tenure", data: s});
  });
  d.messages.forEach(function (m) {
    var l = el("line", {"class": "msg " + m.x}, arrows);
    if (m.x !== "dropped") { l.setAttribute("marker-end", m.x === "duplicate" ? "url(#st-arrow-dup)" : "url(#st-arrow)"); }
    items.push({el: l, kind: "msg", data: m});
  });
  (d.timers || []).forEach(function (tm) {
    var c = el("line", {"class": "timer"}, marks);
    items.push({el: c, kind: "timer", data: tm});
  });
  function layout() {
    items.forEach(function (it) {
      var a = it.data, e = it.el;
      switch (it.kind) {
      case "msg":
        var x1 = x(a.s), y1 = y(a.f), x2 = x(a.a), y2 = y(a.t);
        if (a.x === "dropped") { x2 = x1 + (x2 - x1) * 0.85; y2 = y1 + (y2 - y1) * 0.85; }
        e.setAttribute("x1", x1); e.setAttribute("y1", y1); e.setAttribute("x2", x2); e.setAttribute("y2", y2);
        break;
      case "timer":
        var xt = x(a.a);
        e.setAttribute("x1", xt); e.setAttribute("x2", xt);
        e.setAttribute("y1", y(a.n) - 7); e.setAttribute("y2", y(a.n) + 7);
        break;
      case "tenure":
        var i = lane[a.Node];
        if (i === undefined) { return; }
        var xa = x(a.FromMs), xb = x(a.ToMs);
        e.setAttribute("x", xa); e.setAttribute("width", Math.max(xb - xa, 1));
        e.setAttribute("y", y(i) - 4); e.setAttribute("height", 8);
        break;
      case "fault":
        var j = lane[a.Node], y0 = top, h = d.nodes.length * laneH;
        if (a.Node) { if (j === undefined) { return; } y0 = y(j) - laneH / 2 + 2; h = laneH - 4; }
        var fa = x(a.FromMs), fb = x(a.ToMs);
        e.setAttribute("x", fa); e.setAttribute("width", Math.max(fb - fa, 1));
        e.setAttribute("y", y0); e.setAttribute("height", h);
        break;
      }
    });
    var span = document.getElementById("st-span");
    if (span) { span.textContent = (t0 / 1000).toFixed(3) + " s – " + (t1 / 1000).toFixed(3) + " s"; }
  }
  function zoom(factor, at) {
    var t = t0 + (at - left) / (W - left - right) * (t1 - t0);
    var n0 = t - (t - t0) * factor, n1 = t + (t1 - t) * factor;
    if (n1 - n0 < 0.01) { return; }
    t0 = Math.max(lo, n0); t1 = Math.min(end, n1);
    layout();
  }
  function svgX(ev) {
    var r = svg.getBoundingClientRect();
    return (ev.clientX - r.left) / r.width * W;
  }
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    zoom(ev.deltaY > 0 ? 1.25 : 0.8, svgX(ev));
  }, {passive: false});
  var drag = null;
  svg.addEventListener("mousedown", function (ev) { drag = {x: svgX(ev), t0: t0, t1: t1}; });
  window.addEventListener("mouseup", function () { drag = null; });
  svg.addEventListener("mousemove", function (ev) {
    if (!drag) { return; }
    var dt = (svgX(ev) - drag.x) / (W - left - right) * (drag.t1 - drag.t0);
    var w = drag.t1 - drag.t0;
    t0 = Math.min(Math.max(lo, drag.t0 - dt), end - w); t1 = t0 + w;
    layout();
  });
  var detail = document.getElementById("st-detail");
  items.forEach(function (it) {
    it.el.addEventListener("click", function (ev) {
      ev.stopPropagation();
      var a = it.data, text;
      switch (it.kind) {
      case "msg":
        text = a.k + " " + d.nodes[a.f] + " → " + d.nodes[a.t] + ": sent t=" + (a.s / 1000).toFixed(6) + " s, " +
          (a.x === "dropped" ? "dropped (" + (a.w || "lost") + ")" : a.x) + " t=" + (a.a / 1000).toFixed(6) + " s";
        break;
      case "timer":
        text = "timer " + a.k + " on " + d.nodes[a.n] + " fired at t=" + (a.a / 1000).toFixed(6) + " s";
        break;
      case "tenure":
        text = a.Node + " leads (" + a.Label + ") from t=" + (a.FromMs / 1000).toFixed(3) + " s to t=" + (a.ToMs / 1000).toFixed(3) + " s";
        break;
      default:
        text = (a.Node ? a.Node + ": " : "") + a.Label + " from t=" + (a.FromMs / 1000).toFixed(3) + " s to t=" + (a.ToMs / 1000).toFixed(3) + " s";
      }
      if (detail) { detail.textContent = text; }
    });
  });
  document.querySelectorAll("[data-st]").forEach(function (b) {
    b.addEventListener("click", function () {
      var mid = left + (W - left - right) / 2;
      if (b.dataset.st === "in") { zoom(0.5, mid); }
      if (b.dataset.st === "out") { zoom(2, mid); }
      if (b.dataset.st === "reset") { t0 = lo; t1 = end; layout(); }
      if (b.dataset.st === "home") { t0 = home[0]; t1 = home[1]; layout(); }
    });
  });
  layout();
  svg.setAttribute("data-rendered", String(d.messages.length));
})();
