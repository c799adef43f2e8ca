"""Claims: a placed order's missing, wrong or faulty items settled by a refund or by replacements
sent out."""
