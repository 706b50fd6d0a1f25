{{
    config(
        materialized='incremental',
        incremental_strategy='merge',
        unique_key='order_id',
    )
}}

select
    order_id,
    customer_id,
    order_date,
    status,
    {{ cents_to_dollars('amount_cents') }} as amount,
    loaded_at
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where loaded_at > (select max(loaded_at) from {{ this }})
{% endif %}
