"""The reproduction report: the papers' claims judged against the stored results
(:mod:`anonlab.report.claims`), laid out beside each figure and table
(:mod:`anonlab.report.site`)."""
