"""Back-office users and the applications that act for them."""
