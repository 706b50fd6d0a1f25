{% snapshot customers_by_timestamp %}
{{
    config(
        target_schema=target.schema ~ '_snapshots',
        unique_key='customer_id',
        strategy='timestamp',
        updated_at='updated_at',
    )
}}
select * from {{ ref('stg_customers') }}
{% endsnapshot %}

{% snapshot customers_by_check %}
{{
    config(
        target_schema=target.schema ~ '_snapshots',
        unique_key='customer_id',
        strategy='check',
        check_cols=['tier', 'email'],
    )
}}
select customer_id, email, tier from {{ ref('stg_customers') }}
{% endsnapshot %}
