"""The Patient Discharge data set of TCM §8.2, or its public NHDS 2010 stand-in (the reader
and the record layout: :mod:`anonlab.datasets.nhds`)."""

from __future__ import annotations

from anonlab.datasets.nhds import NHDS_FILE, read_patient_discharge
from anonlab.datasets.sources.base import Source

PATIENT_DISCHARGE = Source(
    "patient_discharge",
    read_patient_discharge,
    files=(NHDS_FILE,),
    options=("path", "n", "seed"),
    description="Patient Discharge (TCM §8.2): a user's OSHPD file, or n records of the "
    "NHDS 2010 stand-in",
)
