"""Sales channels, the products each sells, and the publishable API keys that scope a storefront to
some of them."""
