"""`commerce seed`: Medusa v1's seed file, loaded in one transaction, and
loadable again without duplicating anything."""

import json

import pytest

from models import (
    Country, Image, MoneyAmount, Product, ProductCollection, ProductOption, ProductOptionValue, ProductTag,
    ProductType, ProductVariant, Region, ShippingOption, ShippingOptionRequirement, ShippingProfile, Store,
    User,
)
from services.core.errors import Duplicate, InvalidData
from services.store.seed import load_seed
from services.users.users import authenticate_user
from workers.cli import DEMO_SEED

SHARED_FIXTURE = DEMO_SEED.parents[3] / "shared" / "fixtures" / "medusa-seed.json"


def demo() -> dict:
    """A fresh copy of the demo seed file, to edit freely."""
    return json.loads(DEMO_SEED.read_text())


async def snapshot() -> dict:
    """Everything the seed can write, counted, plus the store's currencies and assigned countries."""
    store = await Store.first()
    counts = {
        model.__name__: await model.all().count()
        for model in (
            User, Region, ShippingOption, ShippingOptionRequirement, ProductCollection, Product, ProductVariant,
            ProductOption, ProductOptionValue, MoneyAmount, ProductTag, ProductType, Image,
        )
    }
    counts["assigned countries"] = await Country.exclude(region_id=None).count()
    counts["store currencies"] = sorted(await store.currencies.all().values_list("code", flat=True))
    counts["default currency"] = store.default_currency_code
    return counts


async def ids() -> dict:
    return {
        model.__name__: sorted(await model.all().values_list("id", flat=True))
        for model in (User, Region, ShippingOption, ProductCollection, Product, ProductVariant, ProductOption)
    }


def test_the_demo_seed_is_the_shared_medusa_fixture():
    if SHARED_FIXTURE.exists():
        assert json.loads(SHARED_FIXTURE.read_text()) == demo()


async def test_the_demo_file_loads_the_whole_catalogue():
    report = await load_seed(demo())
    assert report == {"users": 1, "regions": 2, "shipping_options": 4, "product_collections": 2, "products": 10}
    counts = await snapshot()
    assert {k: counts[k] for k in (
        "User", "Region", "ShippingOption", "ProductCollection", "Product", "ProductVariant", "MoneyAmount",
    )} == {
        "User": 1, "Region": 2, "ShippingOption": 4, "ProductCollection": 2, "Product": 10, "ProductVariant": 26,
        "MoneyAmount": 52,
    }
    assert counts["store currencies"] == ["eur", "usd"] and counts["default currency"] == "usd"
    assert counts["assigned countries"] == 5


async def test_fixed_ids_are_kept():
    await load_seed(demo())
    shirt = await Product.get(id="prod_t_shirt")
    assert (shirt.title, shirt.handle, shirt.collection_id) == ("Medusa T-Shirt", "t-shirt", "pcol_summer")
    small = await ProductVariant.get(id="variant_t_shirt_s")
    assert (small.product_id, small.sku, small.title, small.variant_rank) == ("prod_t_shirt", "T-SHIRT-S", "S", 0)
    assert {p.currency_code: p.amount for p in await MoneyAmount.filter(variant_id=small.id)} == {
        "usd": 2000, "eur": 1800,
    }
    [value] = await ProductOptionValue.filter(variant_id=small.id).prefetch_related("option")
    assert (value.value, value.option.title, value.option.product_id) == ("S", "Size", "prod_t_shirt")
    summer = await ProductCollection.get(id="pcol_summer")
    assert (summer.title, summer.handle) == ("Summer", "summer")


async def test_region_placeholders_become_real_region_ids():
    await load_seed(demo())
    regions = {r.name: r for r in await Region.all()}
    assert set(regions) == {"NA", "EU"}
    for region in regions.values():
        assert region.id.startswith("reg_") and region.id not in ("test-region-na", "test-region-eu")
    assert (regions["EU"].currency_code, regions["EU"].tax_rate) == ("eur", 25)
    for name, countries in (("NA", ["ca", "us"]), ("EU", ["de", "dk", "fr"])):
        assert sorted(await Country.filter(region_id=regions[name].id).values_list("iso_2", flat=True)) == countries
    for region in regions.values():
        assert [p.id for p in await region.payment_providers.all()] == ["manual"]
        assert [p.id for p in await region.fulfillment_providers.all()] == ["manual"]
    options = {o.name: o for o in await ShippingOption.all()}
    assert options["NA Flat Rate"].region_id == regions["NA"].id
    assert options["EU Gift Card Delivery"].region_id == regions["EU"].id
    assert options["NA Flat Rate"].amount == 1000 and options["NA Flat Rate"].price_type == "flat_rate"


async def test_a_region_id_with_the_reg_prefix_is_kept():
    data = demo()
    data["regions"][0]["id"] = "reg_north_america"
    for option in data["shipping_options"]:
        if option["region_id"] == "test-region-na":
            option["region_id"] = "reg_north_america"
    await load_seed(data)
    assert (await Region.get(id="reg_north_america")).name == "NA"
    assert await ShippingOption.filter(region_id="reg_north_america").count() == 2


async def test_products_are_published_in_the_default_channel_and_profile():
    await load_seed(demo())
    store = await Store.first()
    default_profile = await ShippingProfile.get(type="default")
    gift_card_profile = await ShippingProfile.get(type="gift_card")
    for product in await Product.all().prefetch_related("sales_channels"):
        assert product.status == "published"
        assert [c.id for c in product.sales_channels] == [store.default_sales_channel_id]
        assert product.profile_id == default_profile.id
    for option in await ShippingOption.all():
        expected = gift_card_profile if "Gift Card" in option.name else default_profile
        assert option.profile_id == expected.id, option.name


async def test_gift_card_products_get_the_gift_card_profile_and_are_not_discountable():
    data = demo()
    data["products"].append({
        "title": "Gift Card", "is_giftcard": True, "discountable": True, "options": [{"title": "Denomination"}],
        "variants": [
            {"title": "25", "options": [{"value": "25"}], "prices": [{"currency_code": "usd", "amount": 2500}]},
        ],
    })
    await load_seed(data)
    card = await Product.get(handle="gift-card")
    assert card.is_giftcard and not card.discountable
    assert card.profile_id == (await ShippingProfile.get(type="gift_card")).id
    assert card.id.startswith("prod_")


async def test_loading_twice_changes_no_counts_and_keeps_ids():
    first_report = await load_seed(demo())
    before, before_ids = await snapshot(), await ids()
    second_report = await load_seed(demo())
    assert second_report == first_report
    assert await snapshot() == before
    assert await ids() == before_ids


async def test_an_edited_file_updates_in_place():
    await load_seed(demo())
    before_ids = await ids()
    data = demo()
    data["products"][0]["variants"][0]["prices"][0]["amount"] = 2500  # T-shirt S in usd
    data["products"][0]["title"] = "Medusa Tee"
    data["regions"][1]["tax_rate"] = 20
    data["shipping_options"][0]["amount"] = 1200
    await load_seed(data)
    assert await ids() == before_ids
    assert await MoneyAmount.filter(variant_id="variant_t_shirt_s", currency_code="usd").values_list(
        "amount", flat=True
    ) == [2500]
    assert await MoneyAmount.all().count() == 52
    assert (await Product.get(id="prod_t_shirt")).title == "Medusa Tee"
    assert (await Region.get(name="EU")).tax_rate == 20
    assert (await ShippingOption.get(name="NA Flat Rate")).amount == 1200


def _unknown_region_currency(d):
    d["regions"][1]["currency_code"] = "xyz"


def _region_currency_not_sold_by_the_store(d):
    d["regions"][1]["currency_code"] = "gbp"


def _country_in_two_regions(d):
    d["regions"][1]["countries"].append("us")


def _flat_rate_without_amount(d):
    del d["shipping_options"][3]["amount"]


def _variant_with_an_extra_option_value(d):
    d["products"][-1]["variants"][1]["options"].append({"value": "Red"})


def _variant_missing_its_option_value(d):
    d["products"][4]["variants"][0]["options"] = []


def _price_in_an_unknown_currency(d):
    d["products"][-1]["variants"][-1]["prices"][0]["currency_code"] = "xyz"


def _user_with_an_unknown_role(d):
    d["users"][0]["role"] = "owner"


def _user_with_a_bad_email(d):
    d["users"].append({"email": "not-an-email", "password": "x"})


def _region_with_an_unknown_provider(d):
    d["regions"][1]["fulfillment_providers"] = ["manual", "carrier-pigeon"]


def _region_with_an_unknown_country(d):
    d["regions"][0]["countries"].append("zz")


def _product_in_an_unknown_collection(d):
    d["products"][-1]["collection_id"] = "pcol_winter"


def _product_with_an_unknown_status(d):
    d["products"][-1]["status"] = "live"


BAD_FILES = [
    (_unknown_region_currency, InvalidData, "Invalid currency code xyz"),
    (_region_currency_not_sold_by_the_store, InvalidData, "Invalid currency code gbp"),
    (_country_in_two_regions, Duplicate, "United States already exists in region reg_"),
    (_flat_rate_without_amount, InvalidData, "Shipping options of type `flat_rate` must have an `amount`"),
    (_variant_with_an_extra_option_value, InvalidData, "Product options length does not match variant options length"),
    (_variant_missing_its_option_value, InvalidData, "Product options length does not match variant options length"),
    (_price_in_an_unknown_currency, InvalidData, "Currency with code xyz does not exist"),
    (_user_with_an_unknown_role, InvalidData, "role must be one of the following values: admin, member, developer"),
    (_user_with_a_bad_email, InvalidData, "The email is not valid"),
    (_region_with_an_unknown_provider, InvalidData, "Fulfillment provider not found: carrier-pigeon"),
    (_region_with_an_unknown_country, InvalidData, "Invalid country code zz"),
    (_product_in_an_unknown_collection, InvalidData, "Product_collection with id pcol_winter does not exist"),
    (_product_with_an_unknown_status, InvalidData, "status of product Medusa Coffee Beans must be one of"),
]


@pytest.mark.parametrize("spoil,error,message", BAD_FILES, ids=[b[0].__name__.strip("_") for b in BAD_FILES])
async def test_a_bad_file_is_refused_with_a_clear_message_and_writes_nothing(spoil, error, message):
    before = await snapshot()
    data = demo()
    spoil(data)
    with pytest.raises(error) as raised:
        await load_seed(data)
    assert message in raised.value.message
    assert await snapshot() == before


@pytest.mark.parametrize("spoil,error,message", BAD_FILES, ids=[b[0].__name__.strip("_") for b in BAD_FILES])
async def test_a_bad_reload_leaves_the_loaded_store_as_it_was(spoil, error, message):
    await load_seed(demo())
    before, before_ids = await snapshot(), await ids()
    data = demo()
    # edits that come before the spoiled entry in the file, so most of them are written before it fails
    data["products"][0]["variants"][0]["prices"][0]["amount"] = 1
    data["regions"][0]["tax_rate"] = 7
    spoil(data)
    with pytest.raises(error):
        await load_seed(data)
    assert await snapshot() == before and await ids() == before_ids
    assert await MoneyAmount.filter(variant_id="variant_t_shirt_s", currency_code="usd").values_list(
        "amount", flat=True
    ) == [2000]
    assert (await Region.get(name="NA")).tax_rate == 0


async def test_a_file_without_variant_ids_or_skus_loads_twice_without_duplicates():
    # Medusa v1's starter file names variants by title and option values only
    data = demo()
    for product in data["products"]:
        for entry in product["variants"]:
            del entry["id"], entry["sku"]
    await load_seed(data)
    before, before_ids = await snapshot(), await ids()
    assert before["ProductVariant"] == 26
    await load_seed(data)
    assert await snapshot() == before and await ids() == before_ids
    shirt_variants = await ProductVariant.filter(product_id="prod_t_shirt").order_by("variant_rank")
    assert [v.title for v in shirt_variants] == ["S", "M", "L"]


async def test_a_user_without_a_role_is_a_member():
    data = demo()
    data["users"].append({"email": "Clerk@Example.com", "password": "clerk-pass"})
    await load_seed(data)
    clerk = await User.get(email="clerk@example.com")
    assert clerk.role == "member"
    assert (await authenticate_user("clerk@example.com", "clerk-pass")).id == clerk.id


async def test_two_variants_with_the_same_option_values_are_refused():
    data = demo()
    data["products"][0]["variants"][1]["options"] = [{"value": "S"}]
    with pytest.raises(InvalidData, match="Variant with title M with provided options already exists"):
        await load_seed(data)
    assert await Product.all().count() == 0


async def test_a_file_that_is_not_an_object_or_has_a_bad_list_is_refused():
    with pytest.raises(InvalidData):
        await load_seed([])
    with pytest.raises(InvalidData, match="products must be an array of objects"):
        await load_seed({**demo(), "products": {"title": "x"}})
    assert await Product.all().count() == 0 and await User.all().count() == 0


async def test_the_seeded_admin_signs_in_with_the_seeded_password():
    await load_seed(demo())
    user = await authenticate_user("admin@test.com", "supersecret")
    assert user.role == "admin" and user.email == "admin@test.com"
    assert user.password_hash and "supersecret" not in user.password_hash
    # loading again keeps the password working and the user single
    await load_seed(demo())
    assert (await authenticate_user("admin@test.com", "supersecret")).id == user.id
