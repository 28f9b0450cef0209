import random
import zlib

WORDS = 'the gil lets one thread run python bytecode at a time while others wait'.split()
DATA = ' '.join(random.Random(0).choices(WORDS, k=1_500_000)).encode()[:5_999_872]


def job(i):
    return len(zlib.compress(DATA))
