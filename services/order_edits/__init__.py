"""Order edits: changes to a placed order that the shopper confirms."""
