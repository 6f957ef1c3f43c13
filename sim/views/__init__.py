"""Pictures and views of shots and games: videos, the 3D HTML page, matplotlib figures,
game pictures and the GUI sandbox."""
