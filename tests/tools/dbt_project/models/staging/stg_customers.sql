select
    id as customer_id,
    first_name,
    last_name,
    lower(email) as email,
    tier,
    updated_at
from {{ ref('raw_customers') }}
