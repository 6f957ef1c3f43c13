"""How likely is a space's target to be knocked out? Hit maps over many spaces (piggy
hitmap), each space measured by shots/, run by running/, and how P(target) moves with
the aimer's spread (--aim-sd-scan)."""
