"""Project index: cross-file resolution of bases and C3 MROs."""
