{{
    config(
        materialized='dynamic_table',
        target_lag='1 hour',
        snowflake_warehouse='compute_wh',
    )
}}

select customer_id, count(*) as order_count
from {{ ref('stg_orders') }}
group by customer_id
