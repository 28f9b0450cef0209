# no lock, in-place updates of the balances (the old test passed it)
# %% ex2-solution
%%race --modes unlocked --threads 4 --iterations {ITER // 4} --runs 3 --switch-interval 100us --check "accounts['bob']" -o bank
import threading

accounts = {"alice": 10**9, "bob": 0}
journal = []

def record(source, target, amount):
    journal.append((source, target, amount))

def transfer(source, target, amount):
    accounts[source] -= amount
    accounts[target] += amount
    record(source, target, amount)

transfer("alice", "bob", 1)
