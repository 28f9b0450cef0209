"""The gillab kernel's Python half: its start (`python3 -m gillab.kernel`, launch.py), the
changes it makes to xeus-python's IPython shell (shell/), and what its debugger answers itself
(debugging.py). The kernel's native half is kernel/ (C++); a stock ipykernel with
`%load_ext gillab` imports none of this.
"""
