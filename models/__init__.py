"""How it is derived: SQL models in layer folders and the small runner that builds them."""
