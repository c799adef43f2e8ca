"""Tortoise ORM models, one module per aggregate."""

from models.analytics_config import AnalyticsConfig
from models.apps import OAuthApp
from models.batch_job import BatchJob
from models.cart import (
    Cart, LineItem, LineItemAdjustment, LineItemTaxLine, PaymentSession, ShippingMethod, ShippingMethodTaxLine,
)
from models.claim import ClaimImage, ClaimItem, ClaimOrder, ClaimTag
from models.collection import ProductCollection
from models.customer import Address, Customer, CustomerGroup
from models.draft_order import DraftOrder
from models.event import Event, EventReceipt
from models.discount import Discount, DiscountCondition, DiscountRule
from models.fulfillment import Fulfillment, FulfillmentItem, TrackingLink
from models.gateway_event import GatewayEvent
from models.gift_card import GiftCard
from models.idempotency import IdempotencyKey
from models.inventory import (
    InventoryItem, InventoryLevel, ProductVariantInventoryItem, ReservationItem, SalesChannelLocation, StockLocation,
    StockLocationAddress,
)
from models.invite import Invite
from models.job import Job
from models.note import Note
from models.notification import Notification, OneTimeToken
from models.order import DisplaySequence, GiftCardTransaction, Order, Payment
from models.order_edit import OrderEdit, OrderItemChange
from models.payment_collection import PaymentCollection, PaymentCollectionSession
from models.price_list import PriceList
from models.product import (
    Image, MoneyAmount, Product, ProductOption, ProductOptionValue, ProductTag, ProductType,
    ProductVariant,
)
from models.product_category import ProductCategory
from models.publishable_api_key import PublishableApiKey
from models.migration_mark import MigrationMark
from models.rate_counter import RateCounter
from models.region import Country, FulfillmentProvider, PaymentProvider, Region, TaxProvider, TaxRate
from models.return_reason import ReturnReason
from models.returns import Refund, Return, ReturnItem
from models.sales_channel import SalesChannel
from models.session import Session
from models.shipping import ShippingOption, ShippingOptionRequirement, ShippingProfile
from models.store import Currency, Store
from models.swap import CustomShippingOption, Swap
from models.user import User
from models.webhook import WebhookDelivery, WebhookEndpoint

__models__ = [
    Address, AnalyticsConfig, BatchJob, Cart, ClaimImage, ClaimItem, ClaimOrder, ClaimTag, Country, Currency, Customer, CustomerGroup, CustomShippingOption, Discount, DiscountCondition, DiscountRule,
    DisplaySequence, DraftOrder, Event, EventReceipt, Fulfillment, GatewayEvent, FulfillmentItem, FulfillmentProvider, GiftCard, GiftCardTransaction, IdempotencyKey, Image, InventoryItem, InventoryLevel, Invite,
    Job, LineItem, LineItemAdjustment, LineItemTaxLine, MoneyAmount, Note, Notification, OAuthApp, OneTimeToken,
    Order, OrderEdit, OrderItemChange, Payment, PaymentCollection, PaymentCollectionSession, PaymentProvider,
    PaymentSession, PriceList, Product, ProductCategory, ProductCollection, ProductOption, ProductOptionValue,
    ProductTag, ProductType, ProductVariant, ProductVariantInventoryItem, PublishableApiKey, RateCounter, MigrationMark, Refund, Region, ReservationItem, Return, ReturnItem, ReturnReason, SalesChannel, SalesChannelLocation, Session,
    ShippingMethod, ShippingMethodTaxLine, ShippingOption, ShippingOptionRequirement, ShippingProfile, StockLocation, StockLocationAddress, Store, Swap,
    TaxProvider, TaxRate, TrackingLink, User, WebhookDelivery, WebhookEndpoint,
]
__all__ = [m.__name__ for m in __models__]
