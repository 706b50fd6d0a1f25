{{
    config(
        materialized='incremental',
        incremental_strategy='delete+insert',
        unique_key='order_date',
    )
}}

select
    order_date,
    count(*) as order_count,
    sum(case when status <> 'returned' then {{ cents_to_dollars('amount_cents') }} else 0 end) as revenue
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where order_date >= (select max(order_date) from {{ this }})
{% endif %}
group by order_date
