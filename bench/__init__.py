"""Host tools of ecpsata: the benchmark CLI (`python -m bench`) and the simulated-board runner."""
