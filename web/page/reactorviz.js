// The page around the replay: it picks a recording, fetches it and hands
// it to the Go program (reactorvizGo.open), fits the terminal to the
// window (reactorvizGo.resize), and turns the browser's keys and clicks
// into what tcell's web screen understands. tcell.js, loaded after this
// file, draws the screen and starts the Go program.
//
// A link names a recording and a moment: #spurious-wakeup@16.2s.
//
// #live shows instead the live run of the server that served the page
// (reactorviz run NAME --web), over a WebSocket to it: #live,paused opens
// it paused, #live,serve is a serve run.
(function () {
  "use strict";

  const pick = document.getElementById("pick");
  const file = document.getElementById("file");
  const status = document.getElementById("status");
  const screen = document.getElementById("screen");
  const terminal = document.getElementById("terminal");
  const bar = document.getElementById("bar");
  let barHeight = 0;
  const defaultRecording = "tour";

  let recordings = [];   // recordings/index.json
  let current = null;    // the recording on screen: {name, moment}
  let goReady = false;
  let ended = false;     // the learner quit the replay
  let last = null;       // what was handed last, for Enter to reopen

  // warnings are what the scenario on screen sets to no effect (a --set
  // of a live run, or the recording's scenario): the status line keeps
  // them after whatever it says, as the terminal keeps its warnings line.
  let warnings = [];
  let said = { text: "", isError: false };

  function say(text, isError) {
    said = { text: text, isError: !!isError };
    let line = text;
    if (warnings.length && !isError) {
      // At most three, as the terminal's warnings line holds.
      const shown = warnings.slice(0, 3).map((w) => "warning: " + w);
      if (warnings.length > 3) shown.push("… " + (warnings.length - 3) + " more (reactorviz validate lists them)");
      line += " · ⚠ " + shown.join(" · ⚠ ");
    }
    status.textContent = line;
    status.title = line;
    status.classList.toggle("error", !!isError);
    status.classList.toggle("warn", warnings.length > 0 && !isError);
    // A long line wraps the bar onto another row, which takes it from
    // the screen: the terminal is fitted again, or its last rows would be
    // under the window's edge.
    const h = bar.offsetHeight;
    if (h !== barHeight) {
      barHeight = h;
      if (goReady) fit();
    }
  }

  // parseHash reads #name@moment; moment is a time (16.2s) or an event.
  function parseHash() {
    const h = decodeURIComponent(location.hash.replace(/^#/, ""));
    if (!h) return { name: defaultRecording, moment: "" };
    const at = h.indexOf("@");
    if (at < 0) return { name: h, moment: "" };
    return { name: h.slice(0, at) || defaultRecording, moment: h.slice(at + 1) };
  }

  async function loadIndex() {
    const resp = await fetch("recordings/index.json");
    if (!resp.ok) throw new Error("recordings/index.json: " + resp.status);
    recordings = await resp.json();
    const groups = {};
    for (const r of recordings) {
      let g = groups[r.group];
      if (!g) {
        g = groups[r.group] = document.createElement("optgroup");
        g.label = r.group;
        pick.appendChild(g);
      }
      const o = document.createElement("option");
      o.value = r.name;
      o.textContent = r.name + " · " + r.model + " · " + r.duration;
      g.appendChild(o);
    }
  }

  // openRecording fetches a built-in recording and opens it at moment.
  async function openRecording(name, moment) {
    const rec = recordings.find((r) => r.name === name);
    if (!rec) {
      say("no built-in recording " + JSON.stringify(name), true);
      return;
    }
    pick.value = name;
    current = { name: name, moment: moment };
    say("loading " + name + "…");
    try {
      const resp = await fetch("recordings/" + encodeURIComponent(name) + ".jsonl.gz");
      if (!resp.ok) throw new Error(resp.status + " " + resp.statusText);
      const data = new Uint8Array(await resp.arrayBuffer());
      // The header's banner and the status line's note say what the
      // recording is (web.recordingLabels, in recordings/index.json): a
      // compare workload's, that its lanes and figures are a quiet
      // machine's, as the terminal's compare screen says (key R).
      hand(name, data, rec.banner, moment, rec.note || "");
    } catch (err) {
      say(name + ": " + err.message, true);
    }
  }

  // hand gives a trace to the Go program once it is running; the status
  // line is cleared after the replay has had a moment to draw.
  function hand(name, data, bannerText, moment, note) {
    ended = false;
    last = { name: name, data: data, banner: bannerText, note: note || "" };
    document.title = "reactorviz · " + name;
    warnings = [];
    window.reactorvizGo.open(name, data, bannerText, moment || "");
    setTimeout(() => {
      if (!ended) say(name + (moment ? " @ " + moment : "") + (note ? " · " + note : ""));
    }, 0);
  }

  // liveWanted reads #live[,paused][,serve]; null for anything else.
  function liveWanted() {
    const h = decodeURIComponent(location.hash.replace(/^#/, ""));
    if (!/^live(,|$)/.test(h)) return null;
    const flags = h.split(",").slice(1);
    return { paused: flags.includes("paused"), serve: flags.includes("serve") };
  }

  // openLive hands the Go program the WebSocket of the live run.
  function openLive(l) {
    ended = false;
    warnings = [];
    last = { live: l };
    current = { name: "live", moment: "", live: true };
    document.title = "reactorviz · live";
    // A live run is not a recording: the picker, the file and the link
    // to a moment would say one is playing.
    for (const el of [pick.closest("label"), file.closest("label"), document.getElementById("link")]) {
      if (el) el.hidden = true;
    }
    document.getElementById("mode").hidden = false;
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/live";
    say("live run: connecting…");
    window.reactorvizGo.live(url, l.paused, l.serve);
    setTimeout(() => {
      if (!ended) say("LIVE: the run on " + location.host + (l.paused ? ", paused at its start (space runs it)" : ""));
    }, 0);
  }

  // learnWanted reads #learn, which resumes the lesson path
  // (docs/tutorial.md) where the learner stopped, and #learn/NAME, which
  // starts at a lesson: the lesson's name, "" to resume, or null for
  // another address.
  function learnWanted() {
    const h = decodeURIComponent(location.hash.replace(/^#/, ""));
    const m = /^learn(?:\/([a-z0-9-]+))?$/.exec(h);
    return m ? m[1] || "" : null;
  }

  // openLearn hands the Go program the lesson path: it runs the lessons on
  // the recordings and keeps the progress in localStorage.
  function openLearn(lesson) {
    ended = false;
    warnings = [];
    current = { name: "learn", moment: "", file: true }; // no link names a lesson's moment
    document.title = "reactorviz · learn";
    say("learn: type your answer, Enter checks it");
    window.reactorvizGo.learn(lesson);
  }

  function openWanted() {
    const lesson = learnWanted();
    if (lesson !== null) {
      openLearn(lesson);
      return;
    }
    const l = liveWanted();
    if (l) {
      if (!(current && current.live && !ended)) openLive(l);
      return;
    }
    const want = parseHash();
    if (current && current.name === want.name && !ended) {
      if (want.moment) {
        window.reactorvizGo.seek(want.moment);
        current.moment = want.moment;
        say(want.name + " @ " + want.moment);
      }
      return;
    }
    openRecording(want.name, want.moment);
  }

  pick.addEventListener("change", () => {
    location.hash = pick.value; // hashchange opens it
    pick.blur(); // keys go to the replay again
  });

  // The replay holds at most a million events (the terminal's limits,
  // which the Go side applies to what it reads, gzipped or not); a file
  // bigger than such a trace is refused before it is read into memory.
  const maxFileBytes = 128 << 20;

  file.addEventListener("change", async () => {
    const f = file.files[0];
    if (!f) return;
    if (f.size > maxFileBytes) {
      say(f.name + ": " + Math.round(f.size / (1 << 20)) + " MiB, more than the page reads (" + (maxFileBytes >> 20) +
          " MiB); 'reactorviz replay --headless " + f.name + "' reads a trace of any size", true);
      file.value = "";
      file.blur();
      return;
    }
    say("reading " + f.name + "…");
    const data = new Uint8Array(await f.arrayBuffer());
    current = { name: f.name, moment: "", file: true };
    history.replaceState(null, "", location.pathname + location.search);
    hand(f.name, data, "", "");
    file.value = "";
    file.blur();
  });

  window.addEventListener("hashchange", () => {
    if (goReady) openWanted();
  });

  // The link to this moment reads the time off the replay's status bar,
  // "event N/M  MM:SS.mmm/…".
  document.getElementById("link").addEventListener("click", async (e) => {
    e.currentTarget.blur();
    if (!current || current.file || current.live) {
      say("a link can name a built-in recording only", true);
      return;
    }
    const m = /event \d+\/\d+\s+(\d+):(\d+)\.(\d+)\//.exec(terminal.textContent);
    let h = "#" + current.name;
    if (m) h += "@" + (parseInt(m[1], 10) * 60 + parseInt(m[2], 10)) + "." + m[3] + "s";
    history.replaceState(null, "", h);
    current.moment = h.split("@")[1] || "";
    try {
      await navigator.clipboard.writeText(location.href);
      say("link copied: " + location.href);
    } catch (_) {
      say("link: " + location.href);
    }
  });

  // fit sizes the terminal to the window: as many cells as fit, and a
  // smaller font if 80×24, the smallest screen the replay lays out, would
  // not fit.
  const lineRatio = 1.25;
  function cellSize(px) {
    const probe = document.createElement("span");
    probe.style.fontSize = px + "px";
    probe.textContent = "0123456789".repeat(8);
    terminal.appendChild(probe);
    const r = probe.getBoundingClientRect();
    terminal.removeChild(probe);
    // Whole pixels a row, and room under the baseline: at 1.2 the next
    // row's cell backgrounds paint over an underscore (rebuild_begin read
    // "rebuild begin") and the descenders of g, p and y.
    return { w: r.width / 80, h: Math.round(px * lineRatio) };
  }

  function fit() {
    const availW = screen.clientWidth, availH = screen.clientHeight;
    let px = 14;
    let c = cellSize(px);
    while (px > 7 && (availW / c.w < 80 || availH / c.h < 24)) {
      px -= 1;
      c = cellSize(px);
    }
    terminal.style.fontSize = px + "px";
    terminal.style.lineHeight = c.h + "px";
    const cols = Math.max(Math.floor(availW / c.w), 20);
    const rows = Math.max(Math.floor(availH / c.h), 5);
    // tcell.js maps clicks with these.
    fontwidth = c.w;
    fontheight = c.h;
    if (goReady) window.reactorvizGo.resize(cols, rows);
  }

  let fitTimer = 0;
  window.addEventListener("resize", () => {
    clearTimeout(fitTimer);
    fitTimer = setTimeout(fit, 100);
  });

  // Keys: tcell's web screen takes KeyboardEvent.key names, and reads any
  // other name as its first letter (PageDown would be P). Keys typed into
  // the page's controls, and the browser's own shortcuts, stay out of the
  // replay; keys the replay takes do not scroll the page.
  const rename = { PageDown: "PgDn", PageUp: "PgUp" };
  const named = new Set(["Enter", "Backspace", "Tab", "Escape", "Delete", "Insert", "ArrowUp", "ArrowDown",
    "ArrowLeft", "ArrowRight", "Home", "End", "PgDn", "PgUp", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10"]);
  window.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t && (t.tagName === "SELECT" || t.tagName === "INPUT" || t.tagName === "BUTTON")) {
      e.stopPropagation();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) {
      e.stopPropagation();
      return;
    }
    if (ended) {
      e.stopPropagation();
      if (e.key === "Enter" && last) {
        if (last.live) openLive(last.live);
        else hand(last.name, last.data, last.banner, "", last.note);
      }
      return;
    }
    const key = rename[e.key] || e.key;
    if (key.length > 1 && !named.has(key)) {
      e.stopPropagation();
      return;
    }
    e.preventDefault();
    if (key !== e.key) {
      e.stopPropagation();
      if (typeof onKeyEvent === "function") onKeyEvent(key, e.shiftKey, false, false, false);
    }
  }, true);

  // Mouse: a click is a press and a release, at the cell under the
  // pointer (tcell.js measures from the span clicked, not the screen).
  // Moves without a button are dropped: the replay has no use for them.
  function cellAt(e) {
    const r = terminal.getBoundingClientRect();
    return [Math.max(0, Math.floor((e.clientX - r.left) / fontwidth)), Math.max(0, Math.floor((e.clientY - r.top) / fontheight))];
  }
  window.addEventListener("click", (e) => {
    if (!terminal.contains(e.target)) return;
    e.stopPropagation();
    if (typeof onMouseClick !== "function") return;
    const [x, y] = cellAt(e);
    onMouseClick(x, y, 1, e.shiftKey, e.altKey, e.ctrlKey);
    onMouseMove(x, y, 0, false, false, false);
  }, true);
  window.addEventListener("mousemove", (e) => e.stopPropagation(), true);

  // Called by the Go program.
  // reactorvizReady runs inside the Go program's start: what it does is
  // left to the next turn of the event loop rather than called back into Go.
  window.reactorvizReady = function () {
    setTimeout(() => {
      goReady = true;
      fit();
      loadIndex().then(openWanted, (err) => say(err.message, true));
    }, 0);
  };
  window.reactorvizWarnings = function (list) {
    warnings = Array.from(list || []);
    say(said.text, said.isError);
  };
  window.reactorvizLiveLost = function (msg) {
    if (!ended) say(msg + " · the screen shows the run as it last was; reload to run it again", true);
  };
  window.reactorvizEnded = function (msg) {
    ended = true;
    if (msg) {
      say(msg, true);
    } else {
      say((current && current.live ? "the live run was stopped" : "the replay was closed") + " · Enter reopens it, or pick a recording");
    }
  };
})();
