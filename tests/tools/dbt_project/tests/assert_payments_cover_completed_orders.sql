-- A completed order is paid in full: any row returned here fails the test.
select order_id, amount, paid
from {{ ref('orders') }}
where status = 'completed' and paid <> amount
