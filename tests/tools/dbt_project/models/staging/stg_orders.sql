select
    id as order_id,
    customer_id,
    order_date,
    status,
    amount_cents,
    loaded_at
from {{ source('shop', 'raw_orders') }}
