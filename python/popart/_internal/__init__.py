"""Internal parts of popart that other front ends (popxl) build on."""
