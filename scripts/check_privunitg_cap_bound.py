#!/usr/bin/python3
"""Numerical check of docs/mechanisms.md B.7's cap bound on small lattices.

B.7 bounds |q(v) - Qbar(g/sigma)| by 24/(pi^2 sqrt(2 pi) sigma) for every unit v and integer g, where
q(v) is the discrete Gaussian's mass of the half-space {z : <z, v> >= g}. This script enumerates the
2-D discrete Gaussian (window +-12 sigma, whose outside mass is below 1e-30) for small sigma, where the
bound is loose enough to be tested, and prints the worst deviation over directions and thresholds.
It exits non-zero if the bound is violated. Needs numpy and scipy (Debian's /usr/bin/python3).
"""
import math
import sys

import numpy as np
from scipy.stats import norm


def esseen_bound(sigma: float) -> float:
    """B.7's delta_E without its e^(-sigma^2) term (negligible for sigma >= 2)."""
    return 24.0 / (math.pi ** 2 * math.sqrt(2.0 * math.pi) * sigma)


def worst_cap_deviation(sigma: float, directions: int = 400) -> float:
    """Largest |q(v) - Qbar(g/sigma)| over v = (cos a, sin a), a in [0, pi/4], g = 0..3 sigma."""
    half = int(12 * sigma)
    k = np.arange(-half, half + 1)
    weights = np.exp(-k.astype(float) ** 2 / (2.0 * sigma ** 2))
    weights /= weights.sum()
    z1, z2 = np.meshgrid(k, k, indexing="ij")
    mass = np.outer(weights, weights)
    worst = 0.0
    for angle in np.linspace(0.0, math.pi / 4.0, directions):
        projection = z1 * math.cos(angle) + z2 * math.sin(angle)
        for g in range(0, int(3 * sigma) + 1):
            q = mass[projection >= g].sum()
            worst = max(worst, abs(q - norm.sf(g / sigma)))
    return worst


def main() -> int:
    """Print the worst deviation against the bound for a few sigma; 1 if any exceeds it."""
    status = 0
    for sigma in (2.0, 3.0, 5.0, 8.0):
        worst = worst_cap_deviation(sigma)
        bound = esseen_bound(sigma)
        print(f"d=2 sigma={sigma:g}: max |q(v) - Qbar| = {worst:.4g}, bound {bound:.4g}, "
              f"ratio {worst / bound:.3f}")
        if worst > bound:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
