// The lesson path (docs/tutorial.md) in the page: #learn resumes where
// the learner stopped, #learn/NAME starts at a lesson. The Go program
// runs the lessons on the recordings and keeps the progress in
// localStorage; this file only routes the link to it.
(function () {
  "use strict";

  // reactorvizLearnWanted is asked by the page before it opens a
  // recording for the address: true when the address is a lesson's, which
  // it then opens.
  window.reactorvizLearnWanted = function () {
    const h = decodeURIComponent(location.hash.replace(/^#/, ""));
    const m = /^learn(?:\/([a-z0-9-]+))?$/.exec(h);
    if (!m) return false;
    document.title = "reactorviz · learn";
    const status = document.getElementById("status");
    if (status) {
      status.textContent = "learn: type your answer, Enter checks it";
      status.classList.remove("error");
    }
    window.reactorvizGo.learn(m[1] || "");
    return true;
  };
})();
