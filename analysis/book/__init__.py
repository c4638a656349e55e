"""The book machinery: the command line (cli), executing notebooks with papermill (runner) and
stopping cleanly on interrupts (interrupt), staging and building the HTML (build), the talk figures'
footer (footer), the Figures page (gallery), references.bib (bibliography), the Sphinx extensions
(bibstyle, sphinx_speedups) and the figure files (figure_files). It may import anything below it;
nothing imports it except the command line and the notebooks.
"""
