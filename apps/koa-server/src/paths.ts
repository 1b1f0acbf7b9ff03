/** The PHP paths the browser front end calls, kept for a drop-in replacement. */
export const QUOTATION_FIELD_PATH = '/cotizaciones/api/update_cotizacion_api.php';
export const QUOTATION_ITEM_PATH = '/cotizaciones/api/update_cot_item.php';
