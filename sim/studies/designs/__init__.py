"""What a launcher design is made of and what it may be: its fields and their ranges,
the designs a sweep or a search makes of them, the objectives read from a design's hit
map, and how hard its bale hits against the toy-safety limits. Nothing here fires a
shot."""
