"""The book machinery: the command line (cli), executing notebooks with papermill (runner) and
stopping cleanly on interrupts (interrupt), staging and building the HTML (build), the figure
style and saver (figures), the Figures page (gallery), references.bib (bibliography), the Sphinx
extensions (bibstyle, sphinx_speedups) and the figure files (figure_files). It may import anything
above it; nothing imports it except the command line, the notebooks' figure calls and the themes'
figure helper (``analysis.book.figures``).
"""
