"""`commerce seed FILE`: loads Medusa v1's seed format in one transaction.

Unlike Medusa v1, loading the same file again changes nothing: every entry is matched to what
is already there (users by email, regions by name, shipping options by region and name,
collections and products by id or handle, variants by id, SKU or option values) and updated in place.
"""

from __future__ import annotations

from typing import Any, Callable

from models import (
    Country, Currency, FulfillmentProvider, Image, MoneyAmount, PaymentProvider, Product,
    ProductCollection, ProductOption, ProductOptionValue, ProductTag, ProductType, ProductVariant,
    Region, SalesChannel, ShippingOption, ShippingOptionRequirement, ShippingProfile, Store, User,
)
from models.product import PRODUCT_STATUSES
from models.user import USER_ROLES
from services.core.db import atomic
from services.core.errors import Duplicate, InvalidData
from services.core.handles import kebab_case
from services.core.passwords import hash_password_async
from services.store.defaults import ensure_defaults
from services.users.users import normalize_email

__all__ = ["load_seed", "SeedReport", "Progress"]

SeedReport = dict[str, int]
Progress = Callable[[str, int, int], None]  # section, entries done, entries in the section


async def load_seed(data: dict[str, Any], progress: Progress | None = None) -> SeedReport:
    """`progress(section, done, total)` is called after each entry, so a caller can say how far it is."""
    if not isinstance(data, dict):
        raise InvalidData("The seed file must hold a JSON object")
    tell = progress or (lambda section, done, total: None)

    async def each(section: str, load) -> list:
        entries, loaded = _list(data, section), []
        for entry in entries:
            loaded.append(await load(entry))
            tell(section, len(loaded), len(entries))
        return loaded

    report: SeedReport = {}
    await ensure_defaults()
    async with atomic():
        store = await Store.first()
        if data.get("store"):
            await _seed_store(store, data["store"])
        report["users"] = len(await each("users", _seed_user))
        region_ids: dict[str, str] = {}

        async def seed_region(entry: dict) -> None:
            region = await _seed_region(entry)
            region_ids[str(entry.get("id") or region.id)] = region.id

        await each("regions", seed_region)
        report["regions"] = len(region_ids)
        report["shipping_options"] = len(
            await each("shipping_options", lambda o: _seed_shipping_option(o, region_ids))
        )
        report["product_collections"] = len(await each("product_collections", _seed_collection))
        report["products"] = len(
            await each("products", lambda p: _seed_product(p, store.default_sales_channel_id))
        )
    return report


def _list(data: dict, key: str) -> list[dict]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InvalidData(f"{key} must be an array of objects")
    return value


async def _seed_store(store: Store, entry: dict) -> None:
    codes = [c.lower() for c in entry.get("currencies") or []]
    default = (entry.get("default_currency_code") or store.default_currency_code).lower()
    if codes:
        known = {c.code: c for c in await Currency.filter(code__in=codes)}
        for code in codes:
            if code not in known:
                raise InvalidData(f"Currency with code {code} does not exist")
        if default not in known:
            raise InvalidData(f"Store does not have currency: {default}")
        await store.currencies.clear()
        await store.currencies.add(*known.values())
    store.default_currency_code = default
    for key in ("name", "swap_link_template", "payment_link_template", "invite_link_template", "metadata"):
        if key in entry:
            setattr(store, key, entry[key])
    await store.save()


async def _seed_user(entry: dict) -> User:
    email = normalize_email(entry.get("email", ""))
    user = await User.get_or_none(email=email, deleted_at=None)
    fields = {k: entry[k] for k in ("first_name", "last_name", "role", "metadata", "api_token") if k in entry}
    if "role" in fields and fields["role"] not in USER_ROLES:
        raise InvalidData(f"role must be one of the following values: {', '.join(USER_ROLES)}")
    if user is None:
        user = User(id=entry.get("id"), email=email, **fields)
    else:
        user.update_from_dict(fields)
    if entry.get("password"):
        user.password_hash = await hash_password_async(entry["password"])
    await user.save()
    return user


async def _seed_region(entry: dict) -> Region:
    name = _required(entry, "name", "region")
    currency = (entry.get("currency_code") or "").lower()
    store = await Store.first()
    if not await store.currencies.filter(code=currency).exists():
        raise InvalidData(f"Invalid currency code {currency} for region {name}")
    tax_rate = entry.get("tax_rate", 0)
    if not isinstance(tax_rate, (int, float)) or not 0 <= tax_rate <= 100:
        raise InvalidData(f"The tax_rate of region {name} must be between 0 and 100")
    given_id = entry.get("id") if str(entry.get("id", "")).startswith("reg_") else None
    region = await Region.get_or_none(id=given_id) if given_id else None
    region = region or await Region.get_or_none(name=name, deleted_at=None)
    fields = {
        "name": name, "currency_code": currency, "tax_rate": tax_rate,
        **{k: entry[k] for k in ("tax_code", "metadata", "includes_tax", "automatic_taxes",
                                 "gift_cards_taxable") if k in entry},
    }
    if region is None:
        region = await Region.create(id=given_id, **fields)
    else:
        await region.update_from_dict(fields).save()
    await _set_providers(region.payment_providers, PaymentProvider, entry.get("payment_providers") or [], "Payment")
    await _set_providers(
        region.fulfillment_providers, FulfillmentProvider, entry.get("fulfillment_providers") or [], "Fulfillment"
    )
    for code in [c.lower() for c in entry.get("countries") or []]:
        country = await Country.get_or_none(iso_2=code)
        if country is None:
            raise InvalidData(f"Invalid country code {code} in region {name}")
        if country.region_id not in (None, region.id):
            raise Duplicate(f"{country.display_name} already exists in region {country.region_id}")
        if country.region_id is None:
            country.region_id = region.id
            await country.save(update_fields=["region_id"])
    return region


async def _set_providers(relation, model, ids: list[str], label: str) -> None:
    providers = list(await model.filter(id__in=ids))
    missing = set(ids) - {p.id for p in providers}
    if missing:
        raise InvalidData(f"{label} provider not found: {', '.join(sorted(missing))}")
    await relation.clear()
    if providers:
        await relation.add(*providers)


async def _seed_shipping_option(entry: dict, region_ids: dict[str, str]) -> ShippingOption:
    name = _required(entry, "name", "shipping option")
    region_id = region_ids.get(str(entry.get("region_id")), entry.get("region_id"))
    region = await Region.get_or_none(id=region_id, deleted_at=None)
    if region is None:
        raise InvalidData(f"Region {entry.get('region_id')} of shipping option {name} does not exist")
    price_type = entry.get("price_type")
    if price_type not in ("flat_rate", "calculated"):
        raise InvalidData("The price must be of type flat_rate or calculated")
    amount = entry.get("amount")
    if price_type == "flat_rate" and (not isinstance(amount, int) or amount < 0):
        raise InvalidData("Shipping options of type `flat_rate` must have an `amount`")
    provider_id = entry.get("provider_id")
    if not await region.fulfillment_providers.filter(id=provider_id).exists():
        raise InvalidData("The fulfillment provider is not available in the provided region")
    profile = await ShippingProfile.get(
        type="gift_card" if entry.get("is_giftcard") else "default", deleted_at=None
    )
    fields = {
        "name": name, "region_id": region.id, "profile_id": profile.id, "provider_id": provider_id,
        "price_type": price_type, "amount": amount, "data": entry.get("data") or {},
        **{k: entry[k] for k in ("is_return", "admin_only", "metadata") if k in entry},
    }
    option = await ShippingOption.get_or_none(id=entry["id"]) if entry.get("id") else None
    option = option or await ShippingOption.get_or_none(region_id=region.id, name=name, deleted_at=None)
    if option is None:
        option = await ShippingOption.create(id=entry.get("id"), **fields)
    else:
        await option.update_from_dict(fields).save()
    requirements = entry.get("requirements") or []
    if len({r.get("type") for r in requirements}) != len(requirements):
        raise InvalidData("Only one requirement of each type is allowed")
    await ShippingOptionRequirement.filter(shipping_option_id=option.id).delete()
    for req in requirements:
        if req.get("type") not in ("min_subtotal", "max_subtotal"):
            raise InvalidData("Requirement type must be min_subtotal or max_subtotal")
        await ShippingOptionRequirement.create(shipping_option_id=option.id, type=req["type"], amount=req["amount"])
    return option


async def _seed_collection(entry: dict) -> ProductCollection:
    title = _required(entry, "title", "collection")
    handle = entry.get("handle") or kebab_case(title)
    collection = await ProductCollection.get_or_none(id=entry["id"]) if entry.get("id") else None
    collection = collection or await ProductCollection.get_or_none(handle=handle, deleted_at=None)
    fields = {"title": title, "handle": handle, **({"metadata": entry["metadata"]} if "metadata" in entry else {})}
    if collection is None:
        return await ProductCollection.create(id=entry.get("id"), **fields)
    await collection.update_from_dict(fields).save()
    return collection


_PRODUCT_FIELDS = (
    "subtitle", "description", "is_giftcard", "discountable", "weight", "length", "height", "width",
    "hs_code", "origin_country", "mid_code", "material", "metadata", "external_id", "collection_id",
)
_VARIANT_FIELDS = (
    "sku", "barcode", "ean", "upc", "inventory_quantity", "allow_backorder", "manage_inventory",
    "hs_code", "origin_country", "mid_code", "material", "weight", "length", "height", "width", "metadata",
)


async def _seed_product(entry: dict, channel_id: str | None) -> Product:
    title = _required(entry, "title", "product")
    handle = entry.get("handle") or kebab_case(title)
    status = entry.get("status") or "published"
    if status not in PRODUCT_STATUSES:
        raise InvalidData(f"status of product {title} must be one of: {', '.join(PRODUCT_STATUSES)}")
    if entry.get("collection_id") and not await ProductCollection.exists(id=entry["collection_id"]):
        raise InvalidData(f"Product_collection with id {entry['collection_id']} does not exist.")
    profile = await ShippingProfile.get(type="gift_card" if entry.get("is_giftcard") else "default", deleted_at=None)
    images = [u for u in entry.get("images") or [] if isinstance(u, str)]
    fields = {
        "title": title, "handle": handle, "status": status, "profile_id": profile.id,
        "thumbnail": entry.get("thumbnail") or (images[0] if images else None),
        **{k: entry[k] for k in _PRODUCT_FIELDS if k in entry},
    }
    if fields.get("is_giftcard"):
        fields["discountable"] = False
    if entry.get("type"):
        fields["type_id"] = (await _by_value(ProductType, entry["type"]["value"])).id
    product = await Product.get_or_none(id=entry["id"]) if entry.get("id") else None
    product = product or await Product.get_or_none(handle=handle, deleted_at=None)
    if product is None:
        product = await Product.create(id=entry.get("id"), **fields)
    else:
        await product.update_from_dict(fields).save()
    await product.tags.clear()
    tags = [await _by_value(ProductTag, t["value"]) for t in entry.get("tags") or []]
    if tags:
        await product.tags.add(*tags)
    await product.images.clear()
    if images:
        await product.images.add(*[await _image(url) for url in images])
    if channel_id and not await product.sales_channels.filter(id=channel_id).exists():
        await product.sales_channels.add(await SalesChannel.get(id=channel_id))
    options = []
    for opt in entry.get("options") or []:
        option_title = _required(opt, "title", f"option of product {title}")
        option = await ProductOption.get_or_none(product_id=product.id, title=option_title, deleted_at=None)
        options.append(option or await ProductOption.create(product_id=product.id, title=option_title))
    seen: set[tuple[str, ...]] = set()
    for rank, variant_entry in enumerate(entry.get("variants") or []):
        await _seed_variant(product, options, variant_entry, rank, seen)
    return product


async def _seed_variant(product: Product, options: list[ProductOption], entry: dict, rank: int, seen: set) -> None:
    title = _required(entry, "title", f"variant of product {product.title}")
    values = [v.get("value") for v in entry.get("options") or []]
    if len(values) != len(options):
        raise InvalidData(
            f"Product options length does not match variant options length. Product has {len(options)} "
            f"and variant {title} has {len(values)}."
        )
    if tuple(values) in seen:
        raise InvalidData(f"Variant with title {title} with provided options already exists")
    seen.add(tuple(values))
    fields = {
        "title": title, "product_id": product.id, "variant_rank": entry.get("variant_rank", rank),
        **{k: entry[k] for k in _VARIANT_FIELDS if k in entry},
    }
    variant = await ProductVariant.get_or_none(id=entry["id"]) if entry.get("id") else None
    if variant is None and entry.get("sku"):
        variant = await ProductVariant.get_or_none(sku=entry["sku"], deleted_at=None)
    if variant is None and not entry.get("id"):
        variant = await _variant_with_values(product, options, values)
    if variant is None:
        variant = await ProductVariant.create(id=entry.get("id"), **fields)
    else:
        await variant.update_from_dict(fields).save()
    await ProductOptionValue.filter(variant_id=variant.id).delete()
    await ProductOptionValue.bulk_create(
        [ProductOptionValue(value=str(v), option_id=o.id, variant_id=variant.id) for o, v in zip(options, values)]
    )
    await MoneyAmount.filter(variant_id=variant.id, price_list_id=None).delete()
    prices = []
    for price in entry.get("prices") or []:
        amount = price.get("amount")
        if not isinstance(amount, int) or amount < 0:
            raise InvalidData(f"Price amount of variant {title} must be a non-negative integer")
        region_id, currency = price.get("region_id"), (price.get("currency_code") or "").lower()
        if region_id:
            region = await Region.get_or_none(id=region_id, deleted_at=None)
            if region is None:
                raise InvalidData(f"Region {region_id} of a price of variant {title} does not exist")
            currency = region.currency_code
        elif not await Currency.exists(code=currency):
            raise InvalidData(f"Currency with code {currency} does not exist")
        prices.append(MoneyAmount(
            variant_id=variant.id, region_id=region_id, currency_code=currency, amount=amount,
            min_quantity=price.get("min_quantity"), max_quantity=price.get("max_quantity"),
        ))
    await MoneyAmount.bulk_create(prices)


async def _variant_with_values(product: Product, options: list[ProductOption], values: list) -> ProductVariant | None:
    """The product's live variant holding exactly these option values: how an entry without id or
    SKU (Medusa's starter file) is recognised on a second load."""
    wanted = {o.id: str(v) for o, v in zip(options, values)}
    for variant in await ProductVariant.filter(product_id=product.id, deleted_at=None).prefetch_related("options"):
        if {v.option_id: v.value for v in variant.options if v.deleted_at is None} == wanted:
            return variant
    return None


async def _by_value(model, value: str):
    row = await model.get_or_none(value=value, deleted_at=None)
    return row or await model.create(value=value)


async def _image(url: str) -> Image:
    image = await Image.filter(url=url, deleted_at=None).first()
    return image or await Image.create(url=url)


def _required(entry: dict, key: str, what: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidData(f"Each {what} needs a {key}")
    return value
