"""Pure model functions (layer 1): power, and later overhead and queueing."""
