{# Money arrives in cents; marts report dollars with two decimals. #}
{% macro cents_to_dollars(column_name, scale=2) -%}
    cast({{ column_name }} / 100 as number(16, {{ scale }}))
{%- endmacro %}
