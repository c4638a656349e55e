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
 * 8. Table state in the address (issue 34): the filters and the sort of a table with filters (the paper
 *    explorer, the claims ledger) are kept in the page's query string (replaceState), so a link followed
 *    from a row and Back bring the table back as it was; a page opened with them applies them.
 * 7. Phone (issue 34): a tap on a link of the page's Contents (or the book's navigation) opened as a
 *    drawer closes the drawer, so the section it leads to is not left under it; a table box whose
 *    table continues beyond it (sideways or below) says so in a line above it.
 * 9. The filters of a table (the paper explorer, the claims ledger): tableFilters(api, config) is the
 *    table's draw callback (analysis/themes/__init__.py, filter_callback); it builds a <select> per
 *    filter once the rows are in, and on a phone hides the columns config.hidden names.
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

  // 9. The filter bar. Built once, when the rows are in (they load after the page: analysis/book/lazy.py).
  //    config: {filters: [{col, label, match: "equals" | "lists", order: "desc" (optional)}], hidden: [col],
  //    barClass, ariaLabel, selectPrefix}. Each filter is a fixed search (DataTables 2) comparing the row's
  //    raw cell (HTML-escaped text, or a link) with the chosen value, so entities and regular-expression
  //    characters need no escaping; an option's label is the cell's text, read by DOMParser (runs no script).
  window.tableFilters = function (api, config) {
    const root = api.table().container();
    if (root.querySelector(".paper-explorer-filters") || !api.data().any()) return;
    const text = (raw) => new DOMParser().parseFromString(String(raw), "text/html").body.textContent;
    const bar = document.createElement("div");
    bar.className = config.barClass;
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", config.ariaLabel);
    config.filters.forEach((f) => {
      const values = new Set();
      api.column(f.col).data().each((raw) => {
        const cell = String(raw);
        (f.match === "lists" ? cell.split(", ") : [cell]).forEach((v) => { if (v.trim()) values.add(v); });
      });
      const sorted = Array.from(values).sort((a, b) => f.order === "desc" ? b.localeCompare(a) :
        text(a).localeCompare(text(b)));
      const label = document.createElement("label");
      const select = document.createElement("select");
      select.dataset.column = String(f.col);
      select.className = config.selectPrefix + f.label.toLowerCase();
      label.append(f.label + " ", select);
      select.add(new Option("all", ""));
      sorted.forEach((v) => select.add(new Option(text(v), v)));
      select.addEventListener("change", () => {
        const want = select.value;
        api.search.fixed("filter-" + f.col, want ? (s, row) => {
          const cell = String(row[f.col]);
          return f.match === "lists" ? cell.split(", ").includes(want) : cell === want;
        } : null).draw();
      });
      bar.append(label);
    });
    const top = api.table().node().closest(".dt-container") || root;
    const layoutRow = top.querySelector(".dt-layout-row");
    top.insertBefore(bar, layoutRow ? layoutRow.nextSibling : top.firstChild);
    const narrow = window.matchMedia("(max-width: 640px)");
    const fit = () => api.columns(config.hidden).visible(!narrow.matches);
    narrow.addEventListener("change", fit);
    fit();
  };

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
      const shown = img.closest("picture") || img; // a phone rendition's <picture> moves as one
      shown.replaceWith(link);
      link.appendChild(shown);
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

  // 7. A link tapped in an opened drawer closes the drawer (the theme left it over the page).
  function closeDrawersOnTap() {
    ["primary", "secondary"].forEach((kind) => {
      const dialog = document.getElementById("pst-" + kind + "-sidebar-modal");
      if (!dialog) return;
      dialog.addEventListener("click", (event) => {
        const link = event.target.closest && event.target.closest("a[href]");
        if (link && dialog.open) dialog.close();
      });
    });
  }

  // 7. "The table continues": a line above a table box whose content is wider or taller than the box.
  function markContinuingTables() {
    const boxes = document.querySelectorAll(
      ".bd-article .pst-scrollable-table-container, .bd-article .cell_output .output.text_html:has(table.dataframe), " +
      ".bd-article .dt-container .dt-layout-table > .dt-layout-cell");
    boxes.forEach((box) => {
      const note = box.previousElementSibling && box.previousElementSibling.classList.contains("reader-continues")
        ? box.previousElementSibling : null;
      const wide = box.scrollWidth > box.clientWidth + 1;
      const tall = box.scrollHeight > box.clientHeight + 1;
      if (!wide && !tall) {
        if (note) note.remove();
        return;
      }
      const text = "The table continues " + (wide && tall ? "to the right and below" : wide ? "to the right" : "below") +
        ": scroll " + (wide && tall ? "inside it" : wide ? "sideways" : "down") + " to read it all.";
      const said = "\u2192 " + text;
      if (note) {
        if (note.textContent !== said) note.textContent = said; // unchanged: no mutation, no new round
        return;
      }
      const line = document.createElement("p");
      line.className = "reader-continues";
      line.textContent = said;
      box.parentNode.insertBefore(line, box);
    });
  }

  // 8. Filters and sort in the query string: "?theme=…&hardware=…&sort=year-desc".
  const FILTER_CLASS = /^(?:paper|ledger)-filter-(\w+)$/;
  function filterName(select) {
    const m = Array.from(select.classList).map((c) => c.match(FILTER_CLASS)).find(Boolean);
    return m ? m[1] : null;
  }
  function saveTableState(container) {
    const params = new URLSearchParams(window.location.search);
    container.querySelectorAll(".paper-explorer-filters select").forEach((select) => {
      const name = filterName(select);
      if (!name) return;
      if (select.value) params.set(name, select.value); else params.delete(name);
    });
    const sorted = container.querySelector("thead th[aria-sort]");
    const title = sorted && sorted.querySelector(".dt-column-title");
    if (title && title.textContent.trim()) {
      const dir = sorted.getAttribute("aria-sort") === "descending" ? "desc" : "asc";
      params.set("sort", title.textContent.trim() + "-" + dir);
    }
    const query = params.toString();
    const url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    if (url !== window.location.pathname + window.location.search + window.location.hash) {
      window.history.replaceState(window.history.state, "", url);
    }
  }
  function restoreTableState() {
    document.querySelectorAll(".dt-container").forEach((container) => {
      const bar = container.querySelector(".paper-explorer-filters");
      if (!bar || container.dataset.readerRestored) return;
      container.dataset.readerRestored = "1";
      const params = new URLSearchParams(window.location.search);
      bar.querySelectorAll("select").forEach((select) => {
        const want = params.get(filterName(select) || "");
        if (want !== null && Array.from(select.options).some((o) => o.value === want) && select.value !== want) {
          select.value = want;
          select.dispatchEvent(new Event("change", { bubbles: true }));
        }
      });
      const sort = (params.get("sort") || "").match(/^(.*)-(asc|desc)$/);
      if (sort) {
        const head = Array.from(container.querySelectorAll("thead th")).find((th) => {
          const t = th.querySelector(".dt-column-title");
          return t && t.textContent.trim() === sort[1];
        });
        const title = head && head.querySelector(".dt-column-title");
        if (title) { // a click per step, each once the table has drawn the one before
          const want = sort[2] === "desc" ? "descending" : "ascending";
          let tries = 0;
          const step = () => {
            if (head.getAttribute("aria-sort") === want || tries >= 3) return;
            tries += 1;
            title.click();
            window.setTimeout(step, 100);
          };
          window.setTimeout(step, 0);
        }
      }
      container.addEventListener("change", (event) => {
        if (event.target.closest(".paper-explorer-filters")) saveTableState(container);
      });
      container.addEventListener("click", (event) => {
        if (event.target.closest("thead th")) window.setTimeout(() => saveTableState(container), 0);
      });
    });
  }

  function ready() {
    bindToggles("primary");
    bindToggles("secondary");
    closeDrawersOnTap();
    markContinuingTables();
    window.addEventListener("resize", markContinuingTables);
    // tables whose rows load after the page (and DataTables' redraws) change their boxes: check again
    window.addEventListener("load", markContinuingTables);
    let pending = 0;
    new MutationObserver(() => {
      restoreTableState(); // once a table's filters are built (its rows are in)
      window.clearTimeout(pending);
      pending = window.setTimeout(markContinuingTables, 200);
    }).observe(document.querySelector(".bd-article") || document.body, { childList: true, subtree: true });
    linkFigures();
    widenProseColumns();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", ready);
  } else {
    ready();
  }
})();
