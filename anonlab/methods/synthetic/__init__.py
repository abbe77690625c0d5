"""Differentially private synthetic data: MST and AIM on private-pgm's graphical models.

Two marginal-based baselines of the select-measure-generate kind, built on the ``mbi``
package (private-pgm; ``pip install 'anonlab[synth]'``), which estimates a graphical
model from noisy marginals:

* ``mst``: McKenna, Miklau & Sheldon (2021), "Winning the NIST Contest: A scalable and
  general approach to differentially private synthetic data" (J. Priv. Confid. 11(3)),
  the MST mechanism (its Algorithm MST; private-pgm's ``mechanisms/mst.py``);
* ``aim``: McKenna, Mullins, Sheldon & Vietri (2022), "AIM: An Adaptive and Iterative
  Mechanism for Differentially Private Synthetic Data" (PVLDB 15(11)), §4 and its
  Algorithm 1 (private-pgm's ``mechanisms/aim.py``).

**Guarantee.** The papers claim (ε, δ)-DP, here for data sets that differ in one record
*replaced* (bounded DP, n public), as the harness's other DP methods: both mechanisms
are ρ-zCDP with ρ the largest value whose Canonne-Kamath-Steinke conversion gives
(ε, δ) (:func:`~anonlab.mechanisms.accounting.zcdp_rho`, the bound private-pgm's
``cdp2adp.cdp_rho`` uses). As released the notion is none: the Gaussian measurements
draw numpy's floating-point normal noise and the selections numpy's floating-point
Gumbel-max exponential mechanism, neither exact
(:data:`~anonlab.mechanisms.measurements.GAUSSIAN_NUMPY`,
:data:`~anonlab.mechanisms.measurements.EXPONENTIAL_GUMBEL`; the release's ``reason``).

**What differs from the published scripts**, which assume add/remove neighbours:

* replacing a record moves one count of a marginal down and another up, so a count
  vector's L2 sensitivity is √2 (:data:`~anonlab.mechanisms.accounting.SENSITIVITY_SQ`),
  not 1: a Gaussian measurement with σ costs ρ = 2/(2σ²) = 1/σ² (every σ below is √2
  times the script's), and the L1 error that the exponential mechanisms score moves by
  up to 2, not 1;
* n is public: no budget goes to the total, the model is fit with total n, and exactly
  n synthetic records are released;
* numerical attributes are binned into equal-width bins over their PUBLIC domains
  (``attribute.domain``; option ``bins``) and decoded by a uniform draw within the bin
  (integer attributes among the integers of their bin), then
  :func:`~anonlab.methods.base.postprocess`; categorical attributes are their concept
  codes (domain: the concepts of the taxonomy's labels, Dom(A)); the class
  (``dataset.target``), if any, is one more attribute whose synthetic labels go to
  ``Release.target``;
* every random draw (measurement noise, the exponential mechanisms, the sampling of
  records, the decoding within bins) comes from the ``numpy.random.Generator`` given to
  ``protect``. mbi's own sampler (``MarkovRandomField.synthetic_data``) draws from
  NumPy's global state, so records are sampled here from the fitted model's
  junction-tree marginals, computed in NumPy float64 (:mod:`.model`); only the
  model fit runs in jax, whose compiled float32 arithmetic is the same on every run on
  a given machine (byte-identical releases; another CPU may differ in the last bits of
  the fit and so in the records). jax stays in its default float32 (enabling x64 is
  process-wide); mbi's warning about float32 concerns n > 10⁵.
* run-time settings are module constants: MST keeps the script's iterations and fits
  its tree with a fixed step; AIM uses fewer iterations per round and a smaller model
  cap than the script (see each constant), and merges repeated measurements of a
  marginal (:mod:`.pgm`).

The synthetic records correspond to no original record (``record_aligned = False``):
metrics that compare a record with its own release refuse these methods.
"""

from anonlab.methods.synthetic.methods import Aim, Mst

__all__ = ["Aim", "Mst"]
