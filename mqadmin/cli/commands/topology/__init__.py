"""Topology as code: plan, apply, exportTopology, wait, doctor."""
