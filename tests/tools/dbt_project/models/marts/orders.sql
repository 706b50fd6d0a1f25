with payments as (
    select order_id, sum(amount) as paid, count(*) as payment_count
    from {{ ref('stg_payments') }}
    group by order_id
)

select
    o.order_id,
    o.customer_id,
    o.order_date,
    o.status,
    {{ cents_to_dollars('o.amount_cents') }} as amount,
    coalesce(p.paid, 0) as paid,
    coalesce(p.payment_count, 0) as payment_count
from {{ ref('stg_orders') }} as o
left join payments as p on p.order_id = o.order_id
