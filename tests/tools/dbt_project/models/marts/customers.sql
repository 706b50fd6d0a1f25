select
    c.customer_id,
    c.first_name || ' ' || c.last_name as full_name,
    c.tier,
    count(o.order_id) as order_count,
    coalesce(sum(o.amount), 0) as lifetime_value,
    min(o.order_date) as first_order_date,
    max(o.order_date) as last_order_date
from {{ ref('stg_customers') }} as c
left join {{ ref('orders') }} as o on o.customer_id = c.customer_id
group by c.customer_id, c.first_name, c.last_name, c.tier
