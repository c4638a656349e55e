/* Search ranking (Sphinx's html_search_scorer; kept out of _static/, whose scripts Jupyter Book
   adds to every page). The bibliography names every paper's title, so a search for a system
   ("FlashAttention") ranked it above the chapter that discusses it: the bibliography and the
   paper index now rank below the chapters and analyses. */
var Scorer = {
  score: (result) => {
    const [docname, , , , score] = result;
    return /(^|\/)(bibliography|paper-index|genindex)$/.test(docname) ? score - 20 : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
