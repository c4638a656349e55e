"""Analysis package for the executable review of ML hardware and compute-efficiency research.

Modules:
    corpus     -- read, normalise and de-duplicate the seed abstracts
    papers     -- the paper table (data/papers.csv) and references.bib
    hardware   -- accelerator specifications (data/hardware.csv)
    assumptions-- named defaults (prices, PUE, carbon) with sources
    models     -- hardware-cost models: FLOPs, MFU, memory, roofline, cost, energy
    figures    -- the shared figure style and deterministic figure saving
    validate   -- schema checks for every file in data/
"""

__version__ = "0.1.0"
