"""Run-time settings of the synthetic-data baselines (:mod:`anonlab.methods.synthetic`)."""

from __future__ import annotations

#: the default δ: the NIST 2018 contest's and the MST and AIM scripts' (``delta = 1e-9``);
#: below 1/n² for every n up to 31,000 (Adult's 30,162 included), the usual δ ≪ 1/n
DEFAULT_DELTA = 1e-9
DELTA_CHOICES = (DEFAULT_DELTA, 1e-6, 1e-12)
#: equal-width bins per numerical attribute (the first the default): 32 keeps a 2-way
#: marginal at 1,024 cells, which Census's 1,080 records can still fill at ε ≈ 1
BIN_CHOICES = (32, 16, 64, 8)

#: mirror-descent iterations of MST's final fit and of its one-way fit that scores the
#: pairs (the script's 10,000 and 2,500); after jax's compilation they cost ~0.1 s on Census
MST_ITERS = 10_000
MST_SELECT_ITERS = 2_500
#: AIM's rounds budget T = 16·d (AIM §4, Algorithm 1 and the script's default)
AIM_ROUNDS_PER_ATTRIBUTE = 16
#: mirror-descent iterations per AIM round, warm-started from the previous model (the
#: script: 1,000); each round changes the model by one marginal
AIM_ITERS = 250
#: AIM's model-size cap in MB (AIM §4 "candidate filtering"; the script: 80 MB, "1.0 for
#: debugging"): each new clique structure costs a jax compilation (~1-2 s), so the cap
#: keeps the model to pairs and small triples on 32-bin attributes
AIM_MAX_MODEL_SIZE = 1.0
#: MST's compression threshold: one-way cells measured below 3σ are merged (MST script)
COMPRESS_SIGMAS = 3.0
SYNTH_EXTRA = "pip install 'anonlab[synth]'"
