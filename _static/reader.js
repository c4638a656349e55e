/* The reader's side of the book, on top of the theme (issue 21). Loaded on every page (Jupyter
 * Book adds every script in _static/); no network, no dependencies.
 *
 * 1. Navigation at every width. pydata-sphinx-theme 0.17 and sphinx-book-theme 1.3 bind their
 *    sidebar handlers to the *first* .primary-toggle / .secondary-toggle on the page, a header
 *    button that is hidden (pydata/pydata-sphinx-theme#2451), so the visible buttons did nothing.
 *    A click on any other toggle is handed to that first one: below 992 px it opens the sidebar
 *    as a dialog, above it collapses or restores the sidebar. The visible buttons also say
 *    whether the sidebar is shown (aria-expanded).
 * 2. Search under file://: Sphinx fetches each result page for a snippet, which a browser refuses
 *    for file:// pages; there the results are listed without snippets instead of failing.
 * 3. Figures that open full size: a figure image in an article links to the image file, so a
 *    multi-panel figure too small to read on a phone opens full size with a tap.
 * 4. Wide tables: a table that scrolls sideways gives its prose columns a readable width.
 * 5. Tables whose rows load after the page (analysis/book/lazy.py): each chunk file calls
 *    lazyRows.put(name, k, rows); DataTables' ajax option calls lazyRows.load, which adds the chunk
 *    files as script elements (allowed under file://, unlike fetch) and hands DataTables all rows,
 *    in order, once every chunk has arrived. A chunk that fails to load is named above the table.
 * 6. Printing: every lazy table shows all its rows while the page prints.
 */
(function () {
  "use strict";

  const chunksOf = {};
  const lazyTables = []; // DataTables settings of the tables whose rows load after the page
  window.lazyRows = {
    put(name, k, rows) {
      (chunksOf[name] = chunksOf[name] || [])[k] = rows;
    },
    load(name, chunks, base, callback, settings) {
      if (settings) lazyTables.push(settings);
      let left = chunks;
      const failed = [];
      const done = () => {
        left -= 1;
        if (left > 0) return;
        const parts = chunksOf[name] || [];
        callback({ data: [].concat(...parts.filter(Boolean)) });
        if (failed.length && settings && settings.nTable) {
          const note = document.createElement("p");
          note.className = "lazy-rows-error";
          note.setAttribute("role", "alert");
          note.textContent = "Some rows of this table could not be loaded: " + failed.join(", ");
          const box = settings.nTable.closest(".dt-container") || settings.nTable;
          box.parentNode.insertBefore(note, box);
        }
      };
      for (let k = 0; k < chunks; k += 1) {
        const script = document.createElement("script");
        script.src = base + name + "-" + k + ".js";
        script.onload = done;
        script.onerror = () => { failed.push(script.src); done(); };
        document.head.append(script);
      }
    },
  };

  // 6. Printing (issue 34): paper cannot page through a table, so while the page prints (Ctrl+P,
  //    make pdf, print emulation) every lazy table shows all its rows; its page length comes back after.
  function printAllRows(printing) {
    lazyTables.forEach((settings) => {
      const api = settings.api || (settings.oInstance && settings.oInstance.api && settings.oInstance.api());
      if (!api || !api.page) return;
      if (printing) {
        if (settings._lenBeforePrint === undefined) settings._lenBeforePrint = api.page.len();
        api.page.len(-1).draw(false);
      } else if (settings._lenBeforePrint !== undefined) {
        api.page.len(settings._lenBeforePrint).draw(false);
        settings._lenBeforePrint = undefined;
      }
    });
  }
  window.addEventListener("beforeprint", () => printAllRows(true));
  window.addEventListener("afterprint", () => printAllRows(false));
  const printQuery = window.matchMedia("print");
  if (printQuery.addEventListener) printQuery.addEventListener("change", (e) => printAllRows(e.matches));

  // (a `const` of documentation_options.js, not a property of window)
  if (window.location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
    DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false; // eslint-disable-line no-undef
  }

  const WIDE = "(min-width: 992px)";

  function expanded(kind) {
    if (kind === "primary") {
      const sidebar = document.getElementById("pst-primary-sidebar");
      const dialog = document.getElementById("pst-primary-sidebar-modal");
      if (dialog && dialog.open) return true;
      return Boolean(sidebar) && window.matchMedia(WIDE).matches &&
        !sidebar.classList.contains("pst-sidebar-hidden");
    }
    const dialog = document.getElementById("pst-secondary-sidebar-modal");
    return Boolean(dialog && dialog.open);
  }

  function bindToggles(kind) {
    const buttons = Array.from(document.querySelectorAll("." + kind + "-toggle"));
    if (buttons.length === 0) return;
    const bound = buttons[0]; // the one the theme's scripts listen to
    const update = () => buttons.forEach((b) => b.setAttribute("aria-expanded", String(expanded(kind))));
    buttons.forEach((button, i) => {
      const id = "pst-" + kind + "-sidebar";
      button.setAttribute("aria-controls", id);
      if (!button.getAttribute("aria-label")) {
        button.setAttribute("aria-label", kind === "primary" ? "Book navigation" : "Contents of this page");
      }
      if (i === 0) return;
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopImmediatePropagation();
        bound.click();
        update();
        if (event.detail > 0) button.blur(); // a pointer click: no tooltip left behind (keys keep focus)
      });
    });
    const dialog = document.getElementById("pst-" + kind + "-sidebar-modal");
    if (dialog) dialog.addEventListener("close", update);
    window.matchMedia(WIDE).addEventListener("change", update);
    update();
  }

  function linkFigures() {
    document.querySelectorAll("article figure img, article .cell_output img").forEach((img) => {
      if (img.closest("a") || !img.currentSrc && !img.src) return;
      const link = document.createElement("a");
      link.href = img.getAttribute("src");
      link.className = "reader-full-size";
      const alt = (img.getAttribute("alt") || "").trim();
      link.setAttribute("aria-label", alt ? "Open full size: " + alt : "Open the figure full size");
      img.replaceWith(link);
      link.appendChild(img);
    });
  }

  // A table that scrolls sideways anyway gives its prose columns (notes, sources) a readable
  // width instead of their longest word's, which made every row a dozen lines tall.
  function widenProseColumns() {
    document.querySelectorAll("article table").forEach((table) => {
      if (table.closest(".dt-container") || !table.tHead) return;
      const box = table.parentElement;
      if (!box || table.scrollWidth <= box.clientWidth + 1) return;
      const heads = Array.from(table.tHead.rows[table.tHead.rows.length - 1].cells);
      const rows = Array.from(table.tBodies).flatMap((b) => Array.from(b.rows)).slice(0, 50);
      heads.forEach((th, i) => {
        const lengths = rows.map((r) => (r.cells[i] ? r.cells[i].textContent.trim().length : 0));
        const mean = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length);
        if (mean > 40) th.style.minWidth = "16em";
      });
    });
  }

  function ready() {
    bindToggles("primary");
    bindToggles("secondary");
    linkFigures();
    widenProseColumns();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
