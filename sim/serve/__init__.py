"""The sandbox in the browser (``piggy serve``): a local web app, its tabs' sandboxes
and the worker processes that run their physics. Needs the ``web`` extra."""
